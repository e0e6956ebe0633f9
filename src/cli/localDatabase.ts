import { loadConfig } from '../config/config';
import { createDatabase, Db } from '../db/database';
import { lockDataDir } from '../db/dataDirLock';
import { migrateToLatest } from '../db/migrate';
import { bootstrapAdmin } from '../identity/bootstrap';

/**
 * Opens the local database (DATABASE_URL, or the embedded one in DATA_DIR), migrated and with the bootstrap admin,
 * runs the task on it and closes it (`bootstrap: false`: without creating the bootstrap admin; `migrate: false`:
 * neither migrated). Only the local admin commands call this: help, version and the remote commands
 * never touch a database.
 */
export async function withLocalDatabase<T>(task: (db: Db) => Promise<T>, options: { bootstrap?: boolean; migrate?: boolean } = {}): Promise<T> {
  const config = loadConfig();
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir, 'the tessera CLI');
  const db = createDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.databaseUrl ? null : config.dataDir, poolMax: 2, applicationName: 'tessera-cli' });
  try {
    // A restore migrates the database itself (to the backup's schema first, when it is older: BACKUP-3).
    if (options.migrate === false) return await task(db);
    await migrateToLatest(db);
    // A restore starts from the database as the migrations leave it: no bootstrap admin of its own (BACKUP-5).
    if (options.bootstrap === false) return await task(db);
    const bootstrap = await bootstrapAdmin(db, { apiKey: config.bootstrapAdminApiKey, password: config.bootstrapAdminPassword });
    if (bootstrap.generatedApiKey) console.error(`Bootstrap admin API key (shown once): ${bootstrap.generatedApiKey}`);
    return await task(db);
  } finally {
    await db.destroy();
    unlock();
  }
}
