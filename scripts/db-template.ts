/**
 * npm run db:template [-- --force]
 *
 * Builds the template new embedded databases start from (src/db/embedded.ts): a PGlite database with every migration
 * applied and no rows of its own (the instance id is minted at each database's first start), kept as a data
 * directory and as a tarball in node_modules/.cache/tessera/pglite-<version>/. `npm install` runs it (postinstall);
 * it does nothing when the template of this PGlite version already holds this build's migrations, and a failure
 * only warns: without a template, a first start creates the database the slow way.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pgliteDatabase } from '../src/db/database';
import { findTemplate, pgliteStartParams, pgliteVersion, templateDirFor, TemplateManifest } from '../src/db/embedded';
import { migrateToLatest, migrationNames } from '../src/db/migrate';

async function buildTemplate(): Promise<void> {
  const started = Date.now();
  const target = templateDirFor(pgliteVersion);
  const building = `${target}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  try {
    const pglite = await PGlite.create({ dataDir: path.join(building, 'data'), startParams: pgliteStartParams });
    const db = pgliteDatabase(pglite);
    try {
      const migrations = await migrateToLatest(db);
      await db('server_settings').where({ key: 'instance' }).del();
      const tarball = await pglite.dumpDataDir('gzip');
      writeFileSync(path.join(building, 'data.tar.gz'), Buffer.from(await tarball.arrayBuffer()));
      const manifest: TemplateManifest = { pgliteVersion, migrations };
      writeFileSync(path.join(building, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    } finally {
      await db.destroy();
    }
    rmSync(target, { recursive: true, force: true });
    renameSync(building, target);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  console.log(`Embedded database template for PGlite ${pgliteVersion} (${migrationNames.length} migrations) built in ${target} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function main(): Promise<void> {
  const current = findTemplate();
  if (!process.argv.includes('--force') && current && current.migrations.length === migrationNames.length) {
    console.log(`Embedded database template for PGlite ${pgliteVersion} is up to date`);
    return;
  }
  console.log('Building the embedded database template (once per install, about 10 s): first starts then take about 2 s');
  await buildTemplate();
}

main().catch((error) => {
  // Never fails an install: without a template a first start is only slower.
  console.warn(`Could not build the embedded database template (first starts will be slower): ${error instanceof Error ? error.message : String(error)}`);
});
