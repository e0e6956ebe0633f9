/**
 * MODEL-3 (`npm run check`): no file outside src/db/models and src/db/migrations names a table as a string. Tables are
 * those the migrations create and those the models name; a table is "named" when it is the literal argument of a
 * query builder (`db('boards')`, `.from('items')`, `.join('layouts', …)`), a qualified column literal
 * (`'boards.id'`), or follows FROM/JOIN/INTO/UPDATE/TABLE/USING in SQL text. Stores take names from the models
 * (`Board.query(trx)`, `Board.table(trx)`, `${Board.tableName}`, `Board.col('id')`). Comment lines are not read.
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

if (require.main === module) {
  const tables = tableNames();
  const findings = files(src)
    .filter((file) => !allowed.some((dir) => file.startsWith(dir + path.sep)))
    .flatMap((file) => findTableNames(readFileSync(file, 'utf8'), tables).map((f) => ({ ...f, file: path.relative(root, file) })));
  for (const f of findings) console.error(`${f.file}:${f.line}: names table ${f.table} (take it from its model in src/db/models): ${f.text}`);
  if (findings.length > 0) {
    console.error(`MODEL-3: ${findings.length} table name(s) outside src/db/models and src/db/migrations`);
    process.exit(1);
  }
  console.log(`MODEL-3: no table named outside src/db/models and src/db/migrations (${tables.length} tables)`);
}
