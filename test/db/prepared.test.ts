import { preparedStatement } from '../../src/db/prepared';
import { startTestServer, type TestServer } from '../support/server';

/**
 * Statements of the hot read path run prepared under a name (src/db/prepared.ts): through node-postgres on PostgreSQL,
 * through src/db/pglitePrepared.ts on PGlite. Both give what the same statement run unnamed gives.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

const sql = `SELECT asked.i, asked.label, asked.at, (asked.i * 2) AS twice, ?::jsonb AS echoed
  FROM jsonb_to_recordset(?::jsonb) AS asked(i int, label text, at timestamptz) ORDER BY asked.i`;
const asked = [
  { i: 1, label: 'one', at: '2026-01-02T03:04:05.000Z' },
  { i: 2, label: null, at: null },
];

describe('prepared statements', () => {
  it('answer as the same statement run unnamed does, on every call, with the same types', async () => {
    const bindings = [JSON.stringify({ nested: [1, 'two'] }), JSON.stringify(asked)];
    const unnamed = await server.db.raw(sql, bindings);
    for (let call = 0; call < 3; call++) {
      const named = await server.db.raw(sql, bindings).options(preparedStatement('tessera_test_prepared'));
      expect(named.rows).toEqual(unnamed.rows);
    }
    expect(unnamed.rows[0]).toEqual({ i: 1, label: 'one', at: new Date('2026-01-02T03:04:05.000Z'), twice: 2, echoed: { nested: [1, 'two'] } });
  });

  // PGlite only: it has one session, which DEALLOCATE ALL empties (node-postgres on PostgreSQL does not recover from it).
  (process.env.TEST_DATABASE_URL ? it.skip : it)('are prepared again on PGlite when the session lost them (DEALLOCATE ALL)', async () => {
    const run = () => server.db.raw('SELECT ?::int + 1 AS next', [41]).options(preparedStatement('tessera_test_deallocated'));
    expect((await run()).rows).toEqual([{ next: 42 }]);
    await server.db.raw('DEALLOCATE ALL');
    expect((await run()).rows).toEqual([{ next: 42 }]);
  });

  it('report a failing statement as the unnamed one does, and work afterwards', async () => {
    const failing = () => server.db.raw('SELECT 1 / ?::int AS quotient', [0]).options(preparedStatement('tessera_test_failing'));
    await expect(failing()).rejects.toThrow(/division by zero/);
    expect((await server.db.raw('SELECT 1 / ?::int AS quotient', [1]).options(preparedStatement('tessera_test_failing'))).rows).toEqual([{ quotient: 1 }]);
  });
});
