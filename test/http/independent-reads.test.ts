import { independentReads } from '../../src/db/independentReads';
import { useTestServer } from '../support/server';

/**
 * Independent reads (src/db/independentReads.ts) run together on the pool but one after the other in a transaction:
 * node-postgres deprecates (and pg 9 refuses) a query handed to a client that is still running one, which is what
 * Promise.all over a transaction's queries did (the PUT's binding check, a restore, a duplicate).
 */
const server = useTestServer();

/** Reads that log when each is started and when it answered, with the values they answered. */
function loggedReads(db: typeof server.db) {
  const log: string[] = [];
  const read = (n: number) => () => {
    log.push(`start ${n}`);
    return db.raw('SELECT ?::int AS n', [n]).then((result: { rows: { n: number }[] }) => {
      log.push(`end ${n}`);
      return result.rows[0].n;
    });
  };
  return { log, reads: [read(1), read(2), read(3)] as const };
}

describe('independentReads', () => {
  it('starts every read at once outside a transaction, and answers in order', async () => {
    const { log, reads } = loggedReads(server.db);
    expect(await independentReads(server.db, reads)).toEqual([1, 2, 3]);
    expect(log.slice(0, 3)).toEqual(['start 1', 'start 2', 'start 3']);
  });

  it('inside a transaction, starts a read only once the one before it answered', async () => {
    await server.db.transaction(async (trx) => {
      const { log, reads } = loggedReads(trx);
      expect(await independentReads(trx, reads)).toEqual([1, 2, 3]);
      expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
    });
  });
});
