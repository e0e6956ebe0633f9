/**
 * The embedded database (PGlite: PostgreSQL compiled to WebAssembly) and the template new ones start from (RUN-1).
 *
 * Creating a database means running initdb inside WebAssembly: 6 to 7 s on two cores, before the migrations. A
 * template (a migrated, empty database built by `npm run db:template`, which `npm install` runs) makes it a copy: its
 * data directory is copied into an empty DATA_DIR, and in-memory databases (the tests') load its tarball. A template
 * is used when it was built by the installed PGlite version and its migrations are among this build's; newer
 * migrations are applied on top at start, as on any database. Without one, the database is created as before.
 */
import { constants, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { migrationNames } from './migrate';

/**
 * PGlite's defaults with a smaller shared buffer pool: zeroing the default 128 MB took 0.6 s of every start
 * (a board of 10,000 items takes a few MB).
 */
export const pgliteStartParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

export const pgliteVersion: string = JSON.parse(readFileSync(path.join(path.dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json'), 'utf8')).version;

/** Where templates are kept: one directory per PGlite version, in node_modules' cache folder (rebuilt with it). */
export const templateRoot = path.resolve(__dirname, '../../node_modules/.cache/tessera');
export const templateDirFor = (version: string) => path.join(templateRoot, `pglite-${version}`);

export interface Template {
  /** The data directory. */
  dataDir: string;
  /** The same as a gzipped tarball (PGlite's dumpDataDir). */
  tarball: string;
  /** The migrations it holds. */
  migrations: string[];
}

export interface TemplateManifest {
  pgliteVersion: string;
  migrations: string[];
}

/** The template for the installed PGlite and this build's migrations, if one was built. */
export function findTemplate(): Template | null {
  const dir = templateDirFor(pgliteVersion);
  let manifest: TemplateManifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  } catch {
    return null;
  }
  const known = new Set(migrationNames);
  if (manifest.pgliteVersion !== pgliteVersion || !manifest.migrations.every((name) => known.has(name))) return null;
  return { dataDir: path.join(dir, 'data'), tarball: path.join(dir, 'data.tar.gz'), migrations: manifest.migrations };
}

/** How an embedded database starts: from its data directory, from the template, or created anew by initdb. */
export type EmbeddedStart = 'existing' | 'template' | 'new';

export function embeddedStart(dataDir: string | null): EmbeddedStart {
  if (dataDir !== null && existsSync(path.join(dataDir, 'PG_VERSION'))) return 'existing';
  return findTemplate() ? 'template' : 'new';
}

/**
 * Opens the embedded database in `dataDir` (null: in memory), from the template when it has none yet. The copy
 * writes PG_VERSION last, the file that says a directory holds a database, so an interrupted copy is done again.
 */
export function openEmbedded(dataDir: string | null): PGlite {
  const template = embeddedStart(dataDir) === 'template' ? findTemplate() : null;
  if (dataDir === null) {
    return new PGlite({ startParams: pgliteStartParams, ...(template ? { loadDataDir: new Blob([readFileSync(template.tarball)]) } : {}) });
  }
  mkdirSync(dataDir, { recursive: true });
  if (template) {
    // A copy-on-write clone where the filesystem can (COPYFILE_FICLONE), a plain copy elsewhere.
    cpSync(template.dataDir, dataDir, { recursive: true, mode: constants.COPYFILE_FICLONE, filter: (source) => path.relative(template.dataDir, source) !== 'PG_VERSION' });
    copyFileSync(path.join(template.dataDir, 'PG_VERSION'), path.join(dataDir, 'PG_VERSION'));
  }
  return new PGlite({ dataDir, startParams: pgliteStartParams });
}
