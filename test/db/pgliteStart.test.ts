/**
 * DB-3: PGlite's start is not a pool timeout. On a loaded machine the embedded database can take longer to start than
 * the pool's acquire timeout; the first statement then waits for the start instead of failing (test servers and
 * `npm start` on a busy 2-core machine failed with "Knex: Timeout acquiring a connection" before).
 */
import { PGlite } from '@electric-sql/pglite';
import { pgliteDatabase } from '../../src/db/database';

describe('DB-3: the embedded database start', () => {
  it('DB-3: a first statement waits for a PGlite start longer than the acquire timeout', async () => {
    // 1 ms is far shorter than any PGlite start (WASM compilation alone takes tens of milliseconds).
    const db = pgliteDatabase(new PGlite(), 1);
    try {
      const result = await db.raw('select 1 as one');
      expect(result.rows).toEqual([{ one: 1 }]);
    } finally {
      await db.destroy();
    }
  });
});
