import { closeSync, openSync, readFileSync, rmSync, writeSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * PGlite has no cross-process lock: two processes on one data directory both "succeed" and lose writes.
 * A pid file makes the second process (another server, or the CLI while the server runs) refuse to start.
 */
export function lockDataDir(dataDir: string, owner: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'tessera.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, owner }));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(file);
      if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
        throw new Error(
          `The data directory ${dataDir} is in use by ${holder.owner} (pid ${holder.pid}). ` +
            'The embedded database allows one process at a time: stop it first, or use DATABASE_URL (PostgreSQL) for several processes.',
        );
      }
      rmSync(file, { force: true }); // stale lock of a process that is gone
    }
  }
  throw new Error(`Could not lock the data directory ${dataDir}`);
}

function readHolder(file: string): { pid: number; owner: string } | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
