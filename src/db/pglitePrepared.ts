/**
 * Named prepared statements on PGlite, for the statements of the hot read path (`preparedStatement` in prepared.ts).
 *
 * PGlite's own `query` sends every statement unnamed: PostgreSQL parses, analyses and plans it again on each call, in
 * WebAssembly on this process's own CPU, and the call takes six trips into it (parse, describe, bind, describe,
 * execute, sync). Here a named statement is parsed and described once per database, and each call is one trip: bind,
 * describe, execute and sync in one message. Parameters are serialized and rows parsed with the instance's own
 * serializers and parsers, as `query` does, and the call holds the instance's query lock as `query` does.
 */
import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';

const { serialize } = protocol;

interface Statement {
  text: string;
  /** The parameter types PostgreSQL gave the statement (oids), for the serializers. */
  types: number[];
}

/** The statements prepared on each instance, by name (a session-level PostgreSQL state: one per instance). */
const prepared = new WeakMap<PGlite, Map<string, Statement>>();

function joined(messages: Uint8Array[]): Uint8Array {
  const message = new Uint8Array(messages.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of messages) {
    message.set(part, offset);
    offset += part.length;
  }
  return message;
}

/** Parses and describes `text` under `name` the first time (a name always stands for one text, as in node-postgres). */
async function statementOf(pglite: PGlite, name: string, text: string): Promise<Statement> {
  let statements = prepared.get(pglite);
  if (!statements) {
    statements = new Map();
    prepared.set(pglite, statements);
  }
  const known = statements.get(name);
  if (known) {
    if (known.text !== text) throw new Error(`Prepared statement "${name}" was prepared for another text`);
    return known;
  }
  const { messages } = await pglite.execProtocol(joined([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]));
  const statement = { text, types: parse.parseDescribeStatementResults(messages) };
  statements.set(name, statement);
  return statement;
}

async function execute(pglite: PGlite, name: string, statement: Statement, params: readonly unknown[]): Promise<Results> {
  const values = params.map((value, i) => {
    if (value === null || value === undefined) return null;
    const serializer = pglite.serializers[statement.types[i]];
    return serializer ? serializer(value) : String(value);
  });
  const { messages } = await pglite.execProtocol(
    joined([serialize.bind({ statement: name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
  );
  return parse.parseResults(messages, pglite.parsers)[0];
}

/** PostgreSQL's invalid_sql_statement_name: the session no longer has the statement (a DEALLOCATE ALL or DISCARD ALL). */
const statementGone = (error: unknown) => (error as { code?: string })?.code === '26000';

/** Runs the statement `name` (parsed from `text` on first use) with `params`: the result as PGlite's `query` gives it. */
export function queryPrepared(pglite: PGlite, name: string, text: string, params: readonly unknown[]): Promise<Results> {
  return pglite.runExclusive(async () => {
    try {
      return await execute(pglite, name, await statementOf(pglite, name, text), params);
    } catch (error) {
      if (!statementGone(error)) throw error;
      prepared.get(pglite)?.delete(name);
      return execute(pglite, name, await statementOf(pglite, name, text), params);
    }
  });
}
