import type { Db } from './database';

interface Waiting<K, V> {
  key: K;
  resolve: (value: V) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces the lookups that requests make in the same turn of the event loop into one query, like a DataLoader
 * without its cache: nothing is remembered between batches. A batch is sent after every lookup in it was asked
 * for, so each caller gets an answer at least as fresh as a query of its own would have given, while the
 * database sees one statement (and the process one round trip) for many concurrent requests.
 */
export class BatchedLookup<K, V> {
  private waiting: Waiting<K, V>[] = [];
  private scheduled = false;

  /** `runBatch` answers the keys in order: one value per key. */
  constructor(
    private readonly runBatch: (keys: readonly K[]) => Promise<readonly V[]>,
    private readonly maxBatch = 64,
  ) {}

  load(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.waiting.push({ key, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate, not nextTick: requests read in the same poll phase each run up to their lookup in their
        // own callback, so only the check phase after the poll sees all of them.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const waiting = this.waiting;
    this.waiting = [];
    for (let start = 0; start < waiting.length; start += this.maxBatch) {
      const batch = waiting.slice(start, start + this.maxBatch);
      this.runBatch(batch.map((entry) => entry.key)).then(
        (values) => batch.forEach((entry, i) => entry.resolve(values[i])),
        (error: unknown) => batch.forEach((entry) => entry.reject(error)),
      );
    }
  }
}

/**
 * Looks `key` up through the batcher of this database handle and purpose (created on first use). Inside a
 * transaction the lookup must see that transaction, so it runs on it directly, alone.
 */
export async function batchedLoad<K, V>(
  registry: WeakMap<Db, BatchedLookup<K, V>>,
  db: Db,
  runBatch: (db: Db, keys: readonly K[]) => Promise<readonly V[]>,
  key: K,
): Promise<V> {
  if (db.isTransaction) return (await runBatch(db, [key]))[0];
  let lookup = registry.get(db);
  if (!lookup) {
    lookup = new BatchedLookup((keys) => runBatch(db, keys));
    registry.set(db, lookup);
  }
  return lookup.load(key);
}
