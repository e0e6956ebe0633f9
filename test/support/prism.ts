/**
 * Starts @stoplight/prism-cli (mock or validating proxy) on a free port, waits until it listens, and always stops it:
 * the process runs in its own process group, which stop() (and, as a last resort, process exit) kills.
 */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../scripts/free-port';

export const repoRoot = path.resolve(__dirname, '../..');
export const specFile = path.join(repoRoot, 'generated/openapi.json');
const prismEntry = path.join(repoRoot, 'node_modules/@stoplight/prism-cli/dist/index.js');

export interface RunningPrism {
  url: string;
  port: number;
  /** Everything Prism printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

export { freePort };

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) killGroup(child, 'SIGKILL');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/**
 * `mode: 'mock'`: `prism mock <spec>`; `mode: 'front'`: `npm run mock` (scripts/mock.js on generated/openapi.json); `mode: 'proxy'`: `prism proxy <spec> <upstream>` (no `--errors`: every request
 * is forwarded and violations are reported in the `sl-violations` response header and the log).
 */
export async function startPrism(options: { mode: 'mock' | 'proxy' | 'front'; upstream?: string; args?: string[]; spec?: string }): Promise<RunningPrism> {
  const spec = options.spec ?? specFile;
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    // `front`: `npm run mock` itself (scripts/mock.js: its front before Prism's mock of generated/openapi.json).
    const args = options.mode === 'front' ? [path.join(repoRoot, 'scripts/mock.js')] : [prismEntry, options.mode, spec];
    if (options.mode === 'proxy') {
      if (!options.upstream) throw new Error('proxy mode needs an upstream URL');
      args.push(options.upstream);
    }
    args.push(options.mode === 'front' ? '--host' : '-h', '127.0.0.1', options.mode === 'front' ? '--port' : '-p', String(port), ...(options.args ?? []));
    try {
      return await launch(args, port);
    } catch (error) {
      // Another process may have taken the port between freePort() and Prism's listen: retry on a new one.
      if (attempt >= 3 || !/EADDRINUSE/.test(String(error))) throw error;
    }
  }
}

function launch(args: string[], port: number): Promise<RunningPrism> {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  running.add(child);
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  exited.then(() => running.delete(child));
  const stop = async () => {
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timeout = setTimeout(() => {
      void stop();
      reject(new Error(`Prism did not start within 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/Prism is listening/.test(output)) {
        clearTimeout(timeout);
        resolve({ url: `http://127.0.0.1:${port}`, port, output: () => output, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timeout);
      reject(new Error(`Prism exited with ${code} before listening:\n${output}`));
    });
  });
}

export interface SlViolation {
  location: string[];
  severity: string;
  code?: string;
  message: string;
}

/**
 * The contract rule for traffic through `prism proxy`: a response violation always fails; a request violation fails
 * when the server accepted the request (status < 400), since the server must reject whatever the contract forbids
 * (tests send invalid requests on purpose and expect the 4xx); an undeclared route must be a 404/405.
 */
export function contractProblems(method: string, url: string, status: number, header: string | null): string[] {
  if (!header) return [];
  let violations: SlViolation[];
  try {
    violations = JSON.parse(header);
  } catch {
    // Prism truncates long lists: "Too many violations! [..." (cut JSON). Judge on what is readable.
    const responseSide = /"location":\["response"/.test(header);
    if (responseSide || status < 400) return [`${method} ${url} -> ${status}: ${header.slice(0, 300)}`];
    return [];
  }
  const problems: string[] = [];
  for (const v of violations) {
    const where = v.location.join('.');
    if (v.location[0] === 'response' && v.severity === 'Error') problems.push(`${method} ${url} -> ${status}: ${where}: ${v.message}`);
    else if (v.location[0] === 'request' && /route not found/i.test(v.message)) {
      if (status !== 404 && status !== 405) problems.push(`${method} ${url} -> ${status}: undeclared route answered ${status}`);
    } else if (v.location[0] === 'request' && v.severity === 'Error' && status < 400) {
      problems.push(`${method} ${url} -> ${status}: the server accepted a request the contract forbids: ${where}: ${v.message}`);
    }
  }
  return problems;
}
