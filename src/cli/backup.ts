/**
 * `tessera backup -o FILE` and `tessera restore FILE [--force]` (BACKUP-1..6): local commands on the database named by
 * DATABASE_URL, or the embedded one in DATA_DIR (locked while they run, like the other local commands).
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { Command } from 'commander';
import { decodeBackup } from '../backup/format';
import { UsageError } from './errors';

/* eslint-disable @typescript-eslint/no-require-imports -- the database drivers are loaded on use, as in main.ts */

type Runner = (work: () => Promise<unknown>) => Promise<void>;

/** Writes `bytes` to `file` whole or not at all (a temporary file renamed), readable by its owner only. */
function writeFileAtomically(file: string, bytes: Uint8Array): void {
  const temporary = `${file}.${process.pid}.partial`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, file);
}

function readBackupFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`No such file: ${file}`);
    throw error;
  }
}

export function addBackupCommands(program: Command, run: Runner): void {
  program
    .command('backup')
    .description('write a backup of the whole instance (boards with history, apps, integrations, users, groups, grants, key hashes, settings) to a file')
    .requiredOption('-o, --output <file>', 'the backup file to write')
    .action((options: { output: string }) =>
      run(async () => {
        const { loadConfig } = require('../config/config') as typeof import('../config/config');
        const { withLocalDatabase } = require('./localDatabase') as typeof import('./localDatabase');
        const { createBackup } = require('../backup/store') as typeof import('../backup/store');
        const engine = loadConfig().databaseUrl ? 'postgresql' : 'pglite';
        const bytes = await withLocalDatabase((db) => createBackup(db, engine), { bootstrap: false });
        writeFileAtomically(options.output, bytes);
        const { header } = decodeBackup(bytes);
        return { file: options.output, bytes: bytes.length, migrations: header.migrations.length, tables: header.tables, excluded: header.excluded };
      }),
    );
  program
    .command('restore')
    .description('restore a backup file into the local database (stop the servers first); refuses a database with data unless --force')
    .argument('<file>', 'the backup file')
    .option('--force', 'replace everything the database holds')
    .action((file: string, options: { force?: boolean }) =>
      run(async () => {
        // The whole file is checked before the database is opened (BACKUP-4).
        const contents = decodeBackup(readBackupFile(file));
        const { withLocalDatabase } = require('./localDatabase') as typeof import('./localDatabase');
        const { restoreInto } = require('../backup/store') as typeof import('../backup/store');
        const summary = await withLocalDatabase((db) => restoreInto(db, contents, { force: options.force === true, refuseWhileServersRun: true }), {
          bootstrap: false,
          migrate: false,
        });
        return { restored: file, takenAt: contents.header.createdAt, from: contents.header.engine, ...summary };
      }),
    );
}
