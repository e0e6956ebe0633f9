import type { Knex } from 'knex';

/**
 * `column IN ids` with the whole list as ONE jsonb parameter, for lists whose size the client decides: knex's
 * whereIn binds one parameter per value, and PostgreSQL refuses a statement of more than 65535 (a protocol error
 * that looks like a lost connection). An empty list matches nothing. Use as `query.modify(whereAmong, column, ids)`.
 */
export function whereAmong(query: Knex.QueryBuilder | { whereRaw(sql: string, bindings: readonly unknown[]): unknown }, column: string, ids: readonly string[]): void {
  query.whereRaw('?? in (select jsonb_array_elements_text(?::jsonb))', [column, JSON.stringify(ids)]);
}
