/**
 * A real Glances REST server (`glances -w --disable-webui`, Debian's glances; scripts/ensure-services.sh installs it)
 * on a free port, for the live-data tests (LIVE-4). Started once per test file, stopped after.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/free-port';

export interface GlancesServer {
  url: string;
  stop(): Promise<void>;
}

export async function startGlances(): Promise<GlancesServer> {
  const port = await freePort();
  const home = mkdtempSync(path.join(tmpdir(), 'tessera-glances-'));
  const child: ChildProcess = spawn('glances', ['-w', '--disable-webui', '-B', '127.0.0.1', '-p', String(port)], {
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home, XDG_DATA_HOME: home },
    stdio: 'ignore',
  });
  child.on('error', () => undefined);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(home, { recursive: true, force: true });
  };
  // Glances takes seconds to start on a loaded machine: wait for its first answer (at most 120 s).
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`glances exited while starting (status ${child.exitCode}); install it with: sh scripts/ensure-services.sh`);
    try {
      const answer = await fetch(`${url}/api/3/cpu`, { signal: AbortSignal.timeout(5000) });
      if (answer.ok) return { url, stop };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error('glances did not answer within 120 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
