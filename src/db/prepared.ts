/**
 * Query options (knex `.options(...)`) that make node-postgres keep a statement prepared on each pooled connection
 * under `name`: PostgreSQL parses and plans it once per connection instead of on every request. Only for the
 * statements of the hot read path, whose text never varies (node-postgres refuses a name reused for another text);
 * they select named columns, never `*`, so that a column added by a migration cannot change a cached plan's result.
 * On PGlite the statement is kept prepared the same way (pglitePrepared.ts).
 */
export function preparedStatement(name: string): { name: string } {
  return { name };
}
