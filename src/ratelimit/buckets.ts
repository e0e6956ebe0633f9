/**
 * RATE-2: the token buckets.
 *
 * On PostgreSQL they live in the database (the UNLOGGED table rate_limit_buckets, migration 0010), so every instance
 * on it takes from the same bucket. An instance takes tokens in small leases: one statement refills the bucket for
 * the time since its last use and takes up to `lease` tokens (at least one, else nothing: the bucket is empty), and
 * the instance spends the rest of the lease on the caller's next requests for at most `leaseMs`. Leased tokens have
 * left the shared bucket, so no more requests are served than the bucket holds, whatever the number of instances; a
 * lease that expires unspent is lost (a caller may be served a little less, never more). The database serialises
 * concurrent takes on one bucket by its row lock. A lease is 1% of the quota (at least 1), so a small quota is exact.
 *
 * On the embedded database (PGlite) the buckets live in the process: PGlite serves one process only (its data
 * directory is locked), so there is no other instance to share them with, and a statement per request would cost the
 * process's own CPU (the database runs inside it).
 */
import type { Db } from '../db/database';
import { isEmbedded } from '../db/isEmbedded';
import { RateLimitBucket } from '../db/models/RateLimitBucket';
import type { RateLimitPolicy } from '../config/config';
import { refillPerSecond } from './classes';

const table = RateLimitBucket.tableName;

// The refill: the stored tokens plus what the time since the last take added, at most a full bucket. clock_timestamp
// (not the transaction's start) so a take that waited for the row lock does not go back in time; greatest(0, …)
// for clocks of several instances' statements in the same microsecond.
const refilled = `least(CAST(:quota AS float8), b.tokens + greatest(0, extract(epoch from clock_timestamp() - b.updated_at)) * CAST(:rate AS float8))`;

const takeSql = `INSERT INTO ${table} AS b (key, tokens, updated_at) VALUES (:key, CAST(:quota AS float8) - CAST(:lease AS float8), clock_timestamp())
  ON CONFLICT (key) DO UPDATE SET tokens = ${refilled} - least(CAST(:lease AS float8), floor(${refilled})), updated_at = clock_timestamp()
  WHERE ${refilled} >= CAST(:cost AS float8)
  RETURNING tokens`;

const peekSql = `SELECT ${refilled} AS tokens FROM ${table} b WHERE key = :key`;

/** `tokens`: what is left for the caller (in the bucket and in this instance's lease), or what there is when refused. */
export type Take = { allowed: boolean; tokens: number };

export interface TokenBuckets {
  /** Takes `cost` tokens (one per request; a tRPC batch one per procedure, RATE-3) or none. */
  take(key: string, policy: RateLimitPolicy, cost?: number): Promise<Take>;
}

/** RATE-2: the in-process bucket maps hold at most this many callers (the least recently used goes first). */
export const maxProcessBuckets = 100_000;

/**
 * RATE-2: rows of rate_limit_buckets untouched for longer than the longest window hold a full bucket, the same as no
 * row: deleted (hourly, with the audit retention). One statement on an unlogged table; several instances doing it at
 * once delete the same rows harmlessly.
 */
export async function pruneBuckets(db: Db, policies: (RateLimitPolicy | null)[]): Promise<number> {
  if (isEmbedded(db)) return 0;
  const longest = Math.max(0, ...policies.map((policy) => policy?.windowSeconds ?? 0));
  return db(table).where('updated_at', '<', db.raw(`clock_timestamp() - make_interval(secs => ?)`, [longest])).del();
}

/** How long an instance may spend a lease. */
export const leaseMs = 1000;
export const leaseSize = (policy: RateLimitPolicy) => Math.max(1, Math.floor(policy.quota / 100));

interface Lease {
  tokens: number;
  /** What the shared bucket held after the lease was taken. */
  shared: number;
  expiresAt: number;
}

/** Buckets shared through PostgreSQL, taken in leases. */
export function databaseBuckets(db: Db): TokenBuckets {
  const leases = new Map<string, Lease>();
  return {
    async take(key, policy, cost = 1) {
      const now = Date.now();
      const lease = leases.get(key);
      if (lease && lease.expiresAt > now && lease.tokens >= cost) {
        lease.tokens -= cost;
        return { allowed: true, tokens: lease.shared + lease.tokens };
      }
      if (lease) leases.delete(key);
      // More than a full bucket is never served (nor written as a negative bucket).
      if (cost > policy.quota) return { allowed: false, tokens: 0 };
      const size = Math.max(cost, leaseSize(policy));
      const bindings = { key, quota: policy.quota, rate: refillPerSecond(policy), lease: size, cost };
      const { rows } = await db.raw<{ rows: { tokens: number }[] }>(takeSql, bindings);
      if (rows.length === 0) {
        const peek = await db.raw<{ rows: { tokens: number }[] }>(peekSql, bindings);
        return { allowed: false, tokens: Number(peek.rows[0]?.tokens ?? 0) };
      }
      const shared = Number(rows[0].tokens);
      // What the statement took: the whole lease when at least a token is left; otherwise it may have taken less (at
      // least `cost`), and `cost` is assumed (an under-count only loses tokens). `cost` is spent now.
      const taken = shared >= 1 ? size : cost;
      if (taken > cost) {
        if (leases.size >= maxProcessBuckets) leases.clear();
        leases.set(key, { tokens: taken - cost, shared, expiresAt: now + leaseMs });
      }
      return { allowed: true, tokens: shared + taken - cost };
    },
  };
}

/**
 * Buckets of one process (the embedded database has no other instance). The map is kept in order of last use and
 * bounded (`max` callers): beyond it the least recently used bucket is forgotten, which gives that caller a full
 * bucket again (a caller unseen that long has most likely refilled anyway).
 */
export function processBuckets(max = maxProcessBuckets): TokenBuckets & { readonly size: number } {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    get size() {
      return buckets.size;
    },
    async take(key, policy, cost = 1) {
      const now = Date.now();
      const bucket = buckets.get(key);
      const tokens = bucket ? Math.min(policy.quota, bucket.tokens + ((now - bucket.at) / 1000) * refillPerSecond(policy)) : policy.quota;
      if (tokens < cost) return { allowed: false, tokens };
      // Deleted and set again: the Map's order is the order of last use, its first key the least recently used.
      if (bucket) buckets.delete(key);
      else if (buckets.size >= max) buckets.delete(buckets.keys().next().value!);
      buckets.set(key, { tokens: tokens - cost, at: now });
      return { allowed: true, tokens: tokens - cost };
    },
  };
}

/** The buckets for a database: in PostgreSQL when it is a server, else (PGlite) in this process (RATE-2). */
export function bucketsFor(db: Db): TokenBuckets {
  return isEmbedded(db) ? processBuckets() : databaseBuckets(db);
}
