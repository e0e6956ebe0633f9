/**
 * RUN-4: the embedded database's data directory lock. A lock whose holder is dead (killed and reaped), a zombie (killed,
 * not reaped: what a restart right after `kill -9` finds) or whose pid now names another process is taken over; a
 * live holder still refuses.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lockDataDir, processStart } from '../../src/db/dataDirLock';
import { eventually } from '../support/eventually';

const root = mkdtempSync(path.join(os.tmpdir(), 'tessera-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const dataDir = () => path.join(root, `data-${n++}`);
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A lock file as a server with `pid` (started at `start`) leaves it. */
function lockedBy(dir: string, pid: number, start?: number | null): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'tessera.lock'), JSON.stringify({ pid, owner: 'the tessera server', ...(start === undefined ? {} : { start }) }));
}

function sleeper(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

const stateOf = (pid: number) => {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[0];
};

describe('the data directory lock (RUN-4)', () => {
  it('RUN-4: a lock naming a live holder refuses, naming it', () => {
    const dir = dataDir();
    const child = sleeper();
    lockedBy(dir, child.pid!, processStart(child.pid!));
    expect(() => lockDataDir(dir, 'the tessera CLI')).toThrow(`is in use by the tessera server (pid ${child.pid})`);
    // A lock written by a version that did not record the start time is trusted as well.
    lockedBy(dir, child.pid!);
    expect(() => lockDataDir(dir, 'the tessera CLI')).toThrow(`(pid ${child.pid})`);
    child.kill('SIGKILL');
  });

  it('RUN-4: a lock naming a pid killed with -9 and reaped is taken over', async () => {
    const dir = dataDir();
    const child = sleeper();
    lockedBy(dir, child.pid!, processStart(child.pid!));
    child.kill('SIGKILL');
    await exited(child);
    const unlock = lockDataDir(dir, 'the tessera server');
    expect(JSON.parse(readFileSync(path.join(dir, 'tessera.lock'), 'utf8'))).toMatchObject({ pid: process.pid, owner: 'the tessera server' });
    unlock();
    expect(existsSync(path.join(dir, 'tessera.lock'))).toBe(false);
  });

  const withProc = existsSync('/proc/self/stat') ? it : it.skip;

  withProc('RUN-4: a lock naming a pid killed with -9 that its parent has not reaped (a zombie) is taken over', async () => {
    // The shell starts a sleeper, prints its pid, then becomes `sleep`, which never reaps it: once killed, it stays a zombie.
    const shell = spawn('sh', ['-c', 'sleep 600 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(shell);
    const pid = await new Promise<number>((resolve) => shell.stdout!.once('data', (chunk) => resolve(Number(String(chunk).trim()))));
    const dir = dataDir();
    lockedBy(dir, pid, processStart(pid));
    process.kill(pid, 'SIGKILL');
    await eventually(async () => expect(stateOf(pid)).toBe('Z'));
    lockDataDir(dir, 'the tessera server')();
    shell.stdout!.destroy();
    shell.kill('SIGKILL');
    await exited(shell);
  });

  withProc('RUN-4: a lock whose pid now belongs to another process (another start time) is taken over', () => {
    const dir = dataDir();
    const child = sleeper();
    lockedBy(dir, child.pid!, processStart(child.pid!)! - 1);
    lockDataDir(dir, 'the tessera server')();
    child.kill('SIGKILL');
  });
});
