/**
 * MODEL-3 (`npm run check`): no file outside src/db/models and src/db/migrations names a table as a string. Tables are
 * those the migrations create and those the models name; a table is "named" when it is the literal argument of a
 * query builder (`db('boards')`, `.from('items')`, `.join('layouts', …)`), a qualified column literal
 * (`'boards.id'`), or follows FROM/JOIN/INTO/UPDATE/TABLE/USING in SQL text. Stores take names from the models
 * (`Board.query(trx)`, `Board.table(trx)`, `${Board.tableName}`, `Board.col('id')`). Comment lines are not read.
 *
 * MODEL-5 (same run): ordinary reads and writes go through `Model.query(trx)`. A plain knex builder on a table
 * (`Model.table(q)`, `db(Model.tableName)`, `.from(Model.tableName)`, `.into(Model.tableName)`) is allowed only where
 * `plainKnexAllowed` below names it with its reason: the board document's loads and plan statements (hot path and
 * set-based), statements whose RETURNING rows decide (objection's insert answers the given row whether or not
 * ON CONFLICT DO NOTHING inserted it), row copies, UNION reads. An entry that matches no line is reported too.
 *
 *   npx tsx scripts/check-table-names.ts          # exit 1 and one line per finding
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'src');
const allowed = [path.join(src, 'db', 'models'), path.join(src, 'db', 'migrations')];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return files(full);
    return /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Table names: created by a migration (createTable('x') or CREATE TABLE x) or named by a model (tableName = 'x'). */
function tableNames(): string[] {
  const names = new Set<string>();
  for (const file of [...files(allowed[0]), ...files(allowed[1])]) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/createTable\(\s*'([a-z_][a-z0-9_]*)'/g)) names.add(m[1]);
    for (const m of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)/g)) names.add(m[1]);
    for (const m of text.matchAll(/tableName = '([a-z_][a-z0-9_]*)'/g)) names.add(m[1]);
    // The grant tables of migration 0001 are created in a loop over [table, …] tuples.
    for (const m of text.matchAll(/\['([a-z_]+_permissions)',/g)) names.add(m[1]);
  }
  return [...names].sort();
}

export function findTableNames(text: string, tables: readonly string[]): { line: number; table: string; text: string }[] {
  const alternatives = tables.map((t) => t.replace(/[^a-z0-9_]/g, '')).join('|');
  const patterns = [
    // db('boards'), trx('items as i'), q("layouts")
    new RegExp(`\\b(?:q|db|trx|tx|knex|query)\\(\\s*['"\`](${alternatives})(?:\\s+as\\s+\\w+)?['"\`]`),
    // .from('items'), .join('layouts', …), .into('sections')
    new RegExp(`\\.(?:from|into|table|join|leftJoin|rightJoin|innerJoin|fullOuterJoin|crossJoin)\\(\\s*['"\`](${alternatives})\\b`),
    // 'boards.id', "items.boardId" (a file name such as 'apps.json' is not a column)
    new RegExp(`['"\`](${alternatives})\\.(?!json['"\`])[A-Za-z_*]`),
    // SQL text
    new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE|USING)\\s+(${alternatives})\\b`),
  ];
  const findings: { line: number; table: string; text: string }[] = [];
  text.split('\n').forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed.startsWith('*') || trimmed.startsWith('//') || trimmed.startsWith('/*')) return;
    for (const pattern of patterns) {
      const m = pattern.exec(line);
      if (m) {
        findings.push({ line: index + 1, table: m[1], text: trimmed });
        return;
      }
    }
  });
  return findings;
}

/** A plain knex builder on a table: the model's knex, or knex called (or `.from`/`.into`) with a model's table name. */
const plainKnexPattern = /\.table\(|\b(?:q|db|trx|tx|knex)\(\s*\w+\.tableName\b|\.(?:from|into)\(\s*\w+\.tableName\b/;

export interface PlainKnexAllowance {
  /** Path from the repository root. */
  file: string;
  /** Text found on each allowed line (one line may match several); absent: every line of the file. */
  lines?: readonly string[];
  reason: string;
}

/**
 * MODEL-5's exceptions (docs/development.md, "Which query form"). Each is a statement objection would make slower or
 * could not express with the same result; everything else reads and writes through `Model.query(trx)`.
 */
export const plainKnexAllowed: readonly PlainKnexAllowance[] = [
  {
    file: 'src/boards/document/store.ts',
    reason: 'board document loads, the revision check and the set-based plan statements: the GET/PUT/PATCH path, rows are not model instances',
  },
  { file: 'src/boards/document/bindings.ts', lines: ['IntegrationItem.table(trx)'], reason: 'the bindings of a write plan: the PUT/PATCH path' },
  { file: 'src/boards/fleet/drift.ts', lines: ['ProvisionedBoard.table(db)'], reason: 'the API lock check of every board write (PROV-4): the PUT/PATCH path' },
  { file: 'src/widgets/data/service.ts', lines: ['Item.table(db)'], reason: 'the item and its bindings of every widget data read, a prepared statement (knex options): the live tiles\' hot path' },
  { file: 'src/apps/apps.ts', lines: ['AppModel.table(trx)'], reason: 'insert-or-ignore whose RETURNING rows decide (APP-1): objection answers the given row either way' },
  { file: 'src/identity/apiKeys.ts', lines: ['ApiKey.table(db)'], reason: 'insert-or-ignore whose RETURNING rows decide (409 on a taken id): objection answers the given row either way' },
  {
    file: 'src/boards/files/importBoard.ts',
    lines: ['Board.table(trx).insert'],
    reason: 'insert-or-ignore whose RETURNING rows decide (name taken: next candidate): objection answers the given row either way',
  },
  {
    file: 'src/boards/management/boards.ts',
    lines: ['Layout.table(trx)', 'Section.table(trx)', 'Item.table(trx)', 'SectionLayout.table(trx)', 'SectionCollapseState.table(trx)', 'ItemLayout.table(trx)', 'model.table(trx)'],
    reason: "duplicate: the source board's rows are copied as plain rows (read, then 500 rows per insert), no model instance per copied row",
  },
  { file: 'src/apps/access.ts', lines: ['.from(AppUserPermission.tableName)', '.from(AppGroupPermission.tableName)'], reason: 'own grant levels: one UNION ALL over the user and group grant tables' },
  { file: 'src/observability/metrics.ts', lines: ['ProvisionedBoard.table(probe.db)'], reason: 'the metrics scrape probe: a count, no rows' },
  { file: 'src/boards/history/store.ts', lines: ['BoardHistoryEntry.table(db)'], reason: 'a sum of pg_column_size for the benchmark, no rows' },
];

export interface PlainKnexFinding {
  file: string;
  line: number;
  text: string;
}

/**
 * MODEL-5: the lines of `text` (the file `file`, relative to the repository root) that use a plain knex builder on a
 * table and no allowance names, and the allowances' lines that matched (`file` + newline + text, '*' for a whole file).
 */
export function findPlainKnex(file: string, text: string, allowed: readonly PlainKnexAllowance[] = plainKnexAllowed): { findings: PlainKnexFinding[]; used: Set<string> } {
  const findings: PlainKnexFinding[] = [];
  const used = new Set<string>();
  const entries = allowed.filter((a) => a.file === file);
  text.split('\n').forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed.startsWith('*') || trimmed.startsWith('//') || trimmed.startsWith('/*') || !plainKnexPattern.test(line)) return;
    const matched = entries.flatMap((a) => (a.lines === undefined ? ['*'] : a.lines.filter((l) => line.includes(l))));
    matched.forEach((l) => used.add(`${file}\n${l}`));
    if (matched.length === 0) findings.push({ file, line: index + 1, text: trimmed });
  });
  return { findings, used };
}

/** Allowance lines that matched nothing: a statement moved to `Model.query` leaves its allowance behind. */
export function staleAllowances(used: ReadonlySet<string>, allowed: readonly PlainKnexAllowance[] = plainKnexAllowed): string[] {
  return allowed.flatMap((a) => (a.lines ?? ['*']).filter((l) => !used.has(`${a.file}\n${l}`)).map((l) => `${a.file}: ${l}`));
}

if (require.main === module) {
  const tables = tableNames();
  const sources = files(src).filter((file) => !allowed.some((dir) => file.startsWith(dir + path.sep)));
  const findings = sources.flatMap((file) => findTableNames(readFileSync(file, 'utf8'), tables).map((f) => ({ ...f, file: path.relative(root, file) })));
  for (const f of findings) console.error(`${f.file}:${f.line}: names table ${f.table} (take it from its model in src/db/models): ${f.text}`);
  const used = new Set<string>();
  const plain = sources.flatMap((file) => {
    const result = findPlainKnex(path.relative(root, file), readFileSync(file, 'utf8'));
    result.used.forEach((entry) => used.add(entry));
    return result.findings;
  });
  for (const f of plain) console.error(`${f.file}:${f.line}: plain knex on a table (use Model.query(trx), or name the statement and its reason in plainKnexAllowed): ${f.text}`);
  const stale = staleAllowances(used);
  for (const entry of stale) console.error(`${entry}: plainKnexAllowed names a line that no longer exists (remove it)`);
  if (findings.length > 0) console.error(`MODEL-3: ${findings.length} table name(s) outside src/db/models and src/db/migrations`);
  if (plain.length + stale.length > 0) console.error(`MODEL-5: ${plain.length} plain knex statement(s) not allowed, ${stale.length} stale allowance(s)`);
  if (findings.length + plain.length + stale.length > 0) process.exit(1);
  console.log(`MODEL-3: no table named outside src/db/models and src/db/migrations (${tables.length} tables)`);
  console.log(`MODEL-5: plain knex on a table only where plainKnexAllowed says why (${plainKnexAllowed.length} allowances)`);
}
