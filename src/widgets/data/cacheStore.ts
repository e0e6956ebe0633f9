/**
 * WDATA-6: the store of the widget-data cache (widget_data_cache). The database's clock and its row locks decide,
 * across every viewer and instance, whether an answer is fresh and who fetches the next one: `claim` succeeds for one
 * caller per expired entry (a claim lapses after its lease, so a stopped instance does not block the entry).
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database';
import { WidgetDataCache } from '../../db/models';

export interface CachedAnswer {
  status: 'ok' | 'error';
  message: string | null;
  data: unknown;
  fetchedAt: string;
}

export interface CacheEntry {
  answer: CachedAnswer | null;
  fresh: boolean;
  /** Another caller holds a live claim (a fetch is under way). */
  claimed: boolean;
  /** Milliseconds until a fresh answer expires, by the database's clock (0 when not fresh). */
  expiresInMs: number;
}

interface Row {
  cacheKey: string;
  status: 'ok' | 'error' | null;
  message: string | null;
  data: unknown;
  fetchedAt: Date | string | null;
  fresh: boolean;
  claimed: boolean;
  expiresInMs: number | string | null;
}

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

function entryOf(row: Row | undefined): CacheEntry {
  if (!row) return { answer: null, fresh: false, claimed: false, expiresInMs: 0 };
  const answer = row.status && row.fetchedAt ? { status: row.status, message: row.message, data: row.data ?? null, fetchedAt: iso(row.fetchedAt) } : null;
  const fresh = answer !== null && row.fresh === true;
  return { answer, fresh, claimed: row.claimed === true, expiresInMs: fresh ? Math.max(0, Number(row.expiresInMs ?? 0)) : 0 };
}

/** The entries of `keys`, in one statement. */
export async function readEntries(db: Db, keys: readonly string[]): Promise<Map<string, CacheEntry>> {
  const result = new Map<string, CacheEntry>();
  if (keys.length === 0) return result;
  const rows = await WidgetDataCache.query(db)
    .whereIn('cacheKey', keys as string[])
    .select(
      'cacheKey',
      'status',
      'message',
      'data',
      'fetchedAt',
      db.raw('coalesce(expires_at > now(), false) AS fresh'),
      db.raw('coalesce(claimed_until > now(), false) AS claimed'),
      db.raw('coalesce(extract(epoch from (expires_at - now())) * 1000, 0)::float8 AS "expiresInMs"'),
    )
    .castTo<Row[]>();
  const byKey = new Map(rows.map((row) => [row.cacheKey, row]));
  for (const key of keys) result.set(key, entryOf(byKey.get(key)));
  return result;
}

/**
 * Claims the fetch of `key` for `leaseMs` when its answer is missing or expired and nobody holds a live claim: the
 * claim's token, or null when the entry is fresh or another caller fetches it.
 */
export async function claimEntry(db: Db, key: string, integrationId: string | null, leaseMs: number): Promise<string | null> {
  const token = randomUUID();
  const table = WidgetDataCache.tableName;
  const { rows } = await db.raw<{ rows: { token: string }[] }>(
    `INSERT INTO ${table} (cache_key, integration_id, claim_token, claimed_until)
     VALUES (?, ?::text, ?, now() + make_interval(secs => ?))
     ON CONFLICT (cache_key) DO UPDATE SET claim_token = excluded.claim_token, claimed_until = excluded.claimed_until
     WHERE (${table}.expires_at IS NULL OR ${table}.expires_at <= now())
       AND (${table}.claimed_until IS NULL OR ${table}.claimed_until <= now())
     RETURNING claim_token AS token`,
    [key, integrationId, token, leaseMs / 1000],
  );
  return rows[0]?.token === token ? token : null;
}

/** Stores the claimed fetch's answer for `ttlMs` and releases the claim (only while the claim is still this caller's). */
export async function storeAnswer(db: Db, key: string, token: string, answer: Omit<CachedAnswer, 'fetchedAt'>, ttlMs: number): Promise<CachedAnswer | null> {
  const rows = await WidgetDataCache.query(db)
    .where({ cacheKey: key, claimToken: token })
    .patch({
      status: answer.status,
      message: answer.message,
      data: JSON.stringify(answer.data ?? null) as unknown,
      fetchedAt: db.fn.now() as unknown as Date,
      expiresAt: db.raw('now() + make_interval(secs => ?)', [ttlMs / 1000]) as unknown as Date,
      claimToken: null,
      claimedUntil: null,
    })
    .returning(['fetchedAt'])
    .castTo<{ fetchedAt: Date | string }[]>();
  const row = (rows as unknown as { fetchedAt: Date | string }[])[0];
  return row ? { ...answer, data: answer.data ?? null, fetchedAt: iso(row.fetchedAt) } : null;
}

/** Expires every cached answer of an integration (after an action changed what it would answer). */
export async function expireIntegration(db: Db, integrationId: string): Promise<void> {
  await WidgetDataCache.query(db).where({ integrationId }).patch({ expiresAt: db.fn.now() as unknown as Date });
}

/** Deletes entries expired for a day and not claimed (options changed, sources no longer named): the hourly prune. */
export async function pruneWidgetData(db: Db): Promise<number> {
  return WidgetDataCache.query(db)
    .where('expiresAt', '<', db.raw(`now() - interval '1 day'`))
    .where((q) => q.whereNull('claimedUntil').orWhere('claimedUntil', '<', db.raw('now()')))
    .delete();
}
