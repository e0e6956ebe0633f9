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
  WHERE ${refilled} >= 1
  RETURNING tokens`;

const peekSql = `SELECT ${refilled} AS tokens FROM ${table} b WHERE key = :key`;

/** `tokens`: what is left for the caller (in the bucket and in this instance's lease), or what there is when refused. */
export type Take = { allowed: boolean; tokens: number };

export interface TokenBuckets {
  take(key: string, policy: RateLimitPolicy): Promise<Take>;
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
    async take(key, policy) {
      const now = Date.now();
      const lease = leases.get(key);
      if (lease && lease.expiresAt > now && lease.tokens >= 1) {
        lease.tokens -= 1;
        return { allowed: true, tokens: lease.shared + lease.tokens };
      }
      if (lease) leases.delete(key);
      const size = leaseSize(policy);
      const bindings = { key, quota: policy.quota, rate: refillPerSecond(policy), lease: size };
      const { rows } = await db.raw<{ rows: { tokens: number }[] }>(takeSql, bindings);
      if (rows.length === 0) {
        const peek = await db.raw<{ rows: { tokens: number }[] }>(peekSql, bindings);
        return { allowed: false, tokens: Number(peek.rows[0]?.tokens ?? 0) };
      }
      const shared = Number(rows[0].tokens);
      // What the statement took: the whole lease when at least a token is left; otherwise it may have taken less, and
      // one is assumed (an under-count only loses tokens). One is spent now.
      const taken = shared >= 1 ? size : 1;
      if (taken > 1) {
        if (leases.size >= 100_000) leases.clear();
        leases.set(key, { tokens: taken - 1, shared, expiresAt: now + leaseMs });
      }
      return { allowed: true, tokens: shared + taken - 1 };
    },
  };
}

/** Buckets of one process (the embedded database has no other instance). */
export function processBuckets(): TokenBuckets {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    async take(key, policy) {
      const now = Date.now();
      const bucket = buckets.get(key);
      const tokens = bucket ? Math.min(policy.quota, bucket.tokens + ((now - bucket.at) / 1000) * refillPerSecond(policy)) : policy.quota;
      if (tokens < 1) return { allowed: false, tokens };
      if (!bucket && buckets.size >= 100_000) {
        // Full buckets carry nothing: forget them before growing further.
        for (const [name, entry] of buckets) if (entry.tokens + ((now - entry.at) / 1000) * refillPerSecond(policy) >= policy.quota) buckets.delete(name);
      }
      buckets.set(key, { tokens: tokens - 1, at: now });
      return { allowed: true, tokens: tokens - 1 };
    },
  };
}

/** The buckets for a database: in PostgreSQL when it is a server, else (PGlite) in this process (RATE-2). */
export function bucketsFor(db: Db): TokenBuckets {
  return isEmbedded(db) ? processBuckets() : databaseBuckets(db);
}
