/**
 * The floor: a bare node:http server answering GET with fixed board bytes, the most any JSON API on this
 * machine could do for the same response. The benchmark reports Tessera's GET throughput as a share of it. A PUT is
 * read whole and parsed as JSON before the same answer: the floor of a whole-board save of that size.
 *
 * With FLOOR_QUERY set, the floor also makes one database round trip per request before answering, the least a
 * server that checks its cache against the database on every request must do (the brief's rule for scaling out):
 * `FLOOR_QUERY=postgres` runs a prepared one-row primary-key lookup through node-postgres on DATABASE_URL,
 * `FLOOR_QUERY=pglite` the same lookup in an in-memory PGlite of its own. Nothing else is done (no key, no access).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';

const body = readFileSync(process.env.FLOOR_BODY_FILE!);

async function roundTrip(): Promise<(() => Promise<unknown>) | null> {
  const lookup = 'SELECT revision FROM floor_boards WHERE id = $1';
  if (process.env.FLOOR_QUERY === 'postgres') {
    const { Pool } = await import('pg');
    const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    // A table of the bench's own schema (DATABASE_URL names it), not a temporary one: those live on one connection.
    await pool.query('DROP TABLE IF EXISTS floor_boards; CREATE TABLE floor_boards (id text PRIMARY KEY, revision int); INSERT INTO floor_boards VALUES ($$b$$, 1)');
    return () => pool.query({ name: 'floor_lookup', text: lookup, values: ['b'] });
  }
  if (process.env.FLOOR_QUERY === 'pglite') {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = new PGlite();
    await db.exec("CREATE TABLE floor_boards (id text PRIMARY KEY, revision int); INSERT INTO floor_boards VALUES ('b', 1)");
    return () => db.query(lookup, ['b']);
  }
  return null;
}

async function main() {
  const query = await roundTrip();
  const answer = (res: http.ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, ETag: '"floor"' });
    res.end(body);
  };
  const server = http.createServer((req, res) => {
    // A write's floor: read the whole body and parse it as JSON, then answer the document.
    if (req.method === 'PUT') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        answer(res);
      });
      return;
    }
    if (!query) return answer(res);
    query().then(
      () => answer(res),
      () => res.writeHead(500).end(),
    );
  });
  server.keepAliveTimeout = 5_000;
  server.listen(Number(process.env.PORT), '127.0.0.1');
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

void main();
