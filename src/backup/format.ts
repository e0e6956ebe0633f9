/**
 * The backup file (BACKUP-4), pure: bytes in, checked contents out, or a refusal; nothing here touches a database.
 *
 *   tessera-backup 1\n              the format line: anything else is not a Tessera backup
 *   {header JSON}\n                 format version, migrations, tables and row counts, payload size and sha256
 *   gzip(payload)                   one line per table (`{"table":…,"rows":n}`) followed by its n rows, one JSON
 *                                   object per line, as PostgreSQL's row_to_json wrote them
 *
 * A file is checked whole (format line, header, size, checksum, decompression, every line's JSON, row counts against
 * the header) before a restore opens the database, so a foreign, truncated or corrupt file writes nothing.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';

export const formatLine = 'tessera-backup 1';
export const formatVersion = 1;

export interface BackupHeader {
  format: 'tessera-backup';
  formatVersion: number;
  createdAt: string;
  /** The Tessera version that wrote it (informative). */
  tesseraVersion: string;
  /** The engine it was taken from (informative: a file restores onto either). */
  engine: 'pglite' | 'postgresql';
  /** The migrations of the database it was taken from, in order: its schema. */
  migrations: string[];
  /** Rows per table in the file. */
  tables: Record<string, number>;
  /** Tables deliberately left out (BACKUP-2), each with the reason. */
  excluded: Record<string, string>;
  payload: { bytes: number; sha256: string };
}

export interface BackupTable {
  name: string;
  /** Each row as one JSON object text (column name to value). */
  rows: string[];
}

export interface BackupContents {
  header: BackupHeader;
  tables: BackupTable[];
}

/** A file that is not a backup this build can restore; nothing was written. */
export class BackupFileError extends Error {}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The payload text of `tables`; a row text with a raw newline (a `json` column keeps its input's) is re-serialized. */
function payloadOf(tables: BackupTable[]): string {
  const lines: string[] = [];
  for (const table of tables) {
    lines.push(JSON.stringify({ table: table.name, rows: table.rows.length }));
    for (const row of table.rows) lines.push(row.includes('\n') ? JSON.stringify(JSON.parse(row)) : row);
  }
  return lines.join('\n') + '\n';
}

/** The bytes of a backup file. */
export function encodeBackup(meta: Omit<BackupHeader, 'format' | 'formatVersion' | 'tables' | 'payload'>, tables: BackupTable[]): Buffer {
  const payload = gzipSync(payloadOf(tables));
  const header: BackupHeader = {
    format: 'tessera-backup',
    formatVersion,
    ...meta,
    tables: Object.fromEntries(tables.map((t) => [t.name, t.rows.length])),
    payload: { bytes: payload.length, sha256: sha256(payload) },
  };
  return Buffer.concat([Buffer.from(`${formatLine}\n${JSON.stringify(header)}\n`), payload]);
}

const tableName = /^[a-z_][a-z0-9_]{0,62}$/;
const maxHeaderBytes = 1024 * 1024;

function isRecordOf(value: unknown, check: (v: unknown) => boolean): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every(check);
}

function checkHeader(value: unknown): BackupHeader {
  const h = value as Partial<BackupHeader> | null;
  if (typeof h !== 'object' || h === null || h.format !== 'tessera-backup') throw new BackupFileError('Not a Tessera backup: the header does not name the format');
  if (h.formatVersion !== formatVersion) {
    throw new BackupFileError(`Backup format version ${String(h.formatVersion)} is not supported by this Tessera (it reads version ${formatVersion})`);
  }
  const valid =
    Array.isArray(h.migrations) &&
    h.migrations.every((m) => typeof m === 'string') &&
    isRecordOf(h.tables, (n) => Number.isInteger(n) && (n as number) >= 0) &&
    Object.keys(h.tables!).every((name) => tableName.test(name)) &&
    isRecordOf(h.excluded ?? {}, (r) => typeof r === 'string') &&
    typeof h.payload === 'object' &&
    h.payload !== null &&
    Number.isInteger(h.payload.bytes) &&
    typeof h.payload.sha256 === 'string';
  if (!valid) throw new BackupFileError('Corrupt backup: the header is incomplete');
  return h as BackupHeader;
}

/** Checks a backup file whole and answers its contents, or throws BackupFileError saying what is wrong with it. */
export function decodeBackup(bytes: Uint8Array): BackupContents {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const first = buffer.indexOf(0x0a);
  if (first < 0 || buffer.subarray(0, first).toString('latin1') !== formatLine) {
    throw new BackupFileError(`Not a Tessera backup: the file does not start with "${formatLine}"`);
  }
  const second = buffer.indexOf(0x0a, first + 1);
  if (second < 0 || second - first > maxHeaderBytes) throw new BackupFileError('Truncated backup: the header ends early');
  let parsed: unknown;
  try {
    parsed = JSON.parse(buffer.subarray(first + 1, second).toString('utf8'));
  } catch {
    throw new BackupFileError('Corrupt backup: the header is not JSON');
  }
  const header = checkHeader(parsed);
  const payload = buffer.subarray(second + 1);
  if (payload.length < header.payload.bytes) {
    throw new BackupFileError(`Truncated backup: ${payload.length} of ${header.payload.bytes} payload bytes present`);
  }
  if (payload.length > header.payload.bytes) throw new BackupFileError('Corrupt backup: bytes after the payload');
  if (sha256(payload) !== header.payload.sha256) throw new BackupFileError('Corrupt backup: the payload checksum does not match');
  let text: string;
  try {
    text = gunzipSync(payload).toString('utf8');
  } catch {
    throw new BackupFileError('Corrupt backup: the payload does not decompress');
  }
  return { header, tables: parseTables(text, header) };
}

function parseTables(text: string, header: BackupHeader): BackupTable[] {
  const lines = text.split('\n');
  if (lines.pop() !== '') throw new BackupFileError('Corrupt backup: the payload does not end with a newline');
  const tables: BackupTable[] = [];
  for (let i = 0; i < lines.length; ) {
    let start: { table?: unknown; rows?: unknown };
    try {
      start = JSON.parse(lines[i]);
    } catch {
      throw new BackupFileError(`Corrupt backup: payload line ${i + 1} is not JSON`);
    }
    const { table, rows } = start ?? {};
    if (typeof table !== 'string' || header.tables[table] !== rows || tables.some((t) => t.name === table)) {
      throw new BackupFileError(`Corrupt backup: payload line ${i + 1} does not start a table the header lists`);
    }
    const count = rows as number;
    const tableRows = lines.slice(i + 1, i + 1 + count);
    if (tableRows.length !== count) throw new BackupFileError(`Corrupt backup: table ${table} has fewer rows than its header says`);
    tableRows.forEach((row, n) => {
      let value: unknown;
      try {
        value = JSON.parse(row);
      } catch {
        value = null;
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new BackupFileError(`Corrupt backup: row ${n + 1} of table ${table} is not a JSON object`);
      }
    });
    tables.push({ name: table, rows: tableRows });
    i += 1 + count;
  }
  const missing = Object.keys(header.tables).filter((name) => !tables.some((t) => t.name === name));
  if (missing.length > 0) throw new BackupFileError(`Corrupt backup: tables missing from the payload: ${missing.join(', ')}`);
  return tables;
}
