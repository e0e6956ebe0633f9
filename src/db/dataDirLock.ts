import { closeSync, openSync, readFileSync, rmSync, writeSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * PGlite has no cross-process lock: two processes on one data directory both "succeed" and lose writes.
 * A pid file makes the second process (another server, or the CLI while the server runs) refuse to start (RUN-4).
 * The file names the holder's pid and, where /proc tells it, the holder's start time: a lock whose holder is gone,
 * a zombie or exiting (a `kill -9` its parent has not reaped yet), or whose pid now belongs to another process (pid
 * reuse after a restart) is taken over; only a live holder refuses.
 */
export function lockDataDir(dataDir: string, owner: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'tessera.lock');
  // RUN-4: a holder that was sent SIGKILL may take a moment to tear down its memory before it is a zombie.
  const deadline = Date.now() + exitingGraceMs;
  let takeovers = 0;
  for (;;) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, owner, start: processStart(process.pid) }));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(file);
      if (holder && holder.pid !== process.pid && holderAlive(holder)) {
        if (Date.now() < deadline && processState(holder.pid) !== null) {
          sleepSync(50);
          continue;
        }
        throw new Error(
          `The data directory ${dataDir} is in use by ${holder.owner} (pid ${holder.pid}). ` +
            'The embedded database allows one process at a time: stop it first, or use DATABASE_URL (PostgreSQL) for several processes.',
        );
      }
      if (takeovers++ >= 2) throw new Error(`Could not lock the data directory ${dataDir}`);
      rmSync(file, { force: true }); // stale lock of a process that is gone, a zombie, or whose pid was reused
    }
  }
}

/** How long a start waits for a holder that /proc shows but that may be exiting, before it refuses. */
const exitingGraceMs = 1_000;

interface Holder {
  pid: number;
  owner: string;
  /** The holder's start time in clock ticks since boot (/proc/<pid>/stat field 22), when known. */
  start?: number | null;
}

function readHolder(file: string): Holder | null {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8'));
    return Number.isSafeInteger(holder?.pid) && holder.pid > 0 ? holder : null;
  } catch {
    return null;
  }
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses), or null. */
function statFields(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** A process's state letter (R, S, D, Z, X, …) where /proc is readable; null when there is no such process or no /proc. */
function processState(pid: number): string | null {
  return statFields(pid)?.[0] ?? null;
}

/** A process's start time (clock ticks since boot) where /proc is readable, else null. */
export function processStart(pid: number): number | null {
  const start = Number(statFields(pid)?.[19]);
  return Number.isSafeInteger(start) ? start : null;
}

/** RUN-4: whether the lock's holder still runs: it exists, is not a zombie or dead, and is the process that wrote the lock. */
export function holderAlive(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = processState(holder.pid);
  if (state === null) return !existsProc(); // no /proc: the signal's answer is all there is
  if (state === 'Z' || state === 'X' || state === 'x') return false;
  // Pid reuse: another process now has the pid (a lock without a start time, from an older version, is trusted).
  if (typeof holder.start === 'number' && processStart(holder.pid) !== holder.start) return false;
  return true;
}

function existsProc(): boolean {
  return statFields(process.pid) !== null;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
