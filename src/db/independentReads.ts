import type { Db } from './database';

type Results<R extends readonly (() => unknown)[]> = { -readonly [K in keyof R]: Awaited<ReturnType<R[K]>> };

/**
 * Independent reads: all at once on the pool (each on a connection of its own), one after the other inside a
 * transaction. A transaction has one connection, which runs one query at a time anyway, and node-postgres deprecates
 * handing a busy client another query (pg 9 refuses it): `Promise.all` over a transaction's queries did exactly that.
 */
export async function independentReads<R extends readonly (() => unknown)[]>(db: Db, reads: readonly [...R]): Promise<Results<R>> {
  if (!db.isTransaction) return (await Promise.all(reads.map((read) => read()))) as Results<R>;
  const results: unknown[] = [];
  for (const read of reads) results.push(await read());
  return results as Results<R>;
}
