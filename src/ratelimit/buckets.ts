/**
 * RATE-2: the token buckets, in PostgreSQL (the UNLOGGED table rate_limit_buckets, migration 0010) so that every
 * instance on the database takes from the same bucket. One statement per request: an upsert that refills the bucket
 * for the time since its last use, takes one token when there is one, and returns what is left; zero rows means the
 * bucket was empty (the row is then left as it was). The database serialises concurrent takes on one bucket by its
 * row lock, so no more tokens are handed out than the bucket holds, whatever the number of instances.
 */
import type { Db } from '../db/database';
import { RateLimitBucket } from '../db/models/RateLimitBucket';
import type { RateLimitPolicy } from '../config/config';
import { refillPerSecond } from './classes';

const table = RateLimitBucket.tableName;

// The refill: the stored tokens plus what the time since the last take added, at most a full bucket. clock_timestamp
// (not the transaction's start) so a take that waited for the row lock does not go back in time; greatest(0, …)
// for clocks of several instances' statements in the same microsecond.
const refilled = `least(:quota, b.tokens + greatest(0, extract(epoch from clock_timestamp() - b.updated_at)) * :rate)`;

const takeSql = `INSERT INTO ${table} AS b (key, tokens, updated_at) VALUES (:key, :quota - 1, clock_timestamp())
  ON CONFLICT (key) DO UPDATE SET tokens = ${refilled} - 1, updated_at = clock_timestamp()
  WHERE ${refilled} >= 1
  RETURNING tokens`;

const peekSql = `SELECT ${refilled} AS tokens FROM ${table} b WHERE key = :key`;

export type Take = { allowed: true; tokens: number } | { allowed: false; tokens: number };

/** Takes one token from the bucket `key` of a class with `policy`; `tokens` is what is left (or what there is). */
export async function takeToken(db: Db, key: string, policy: RateLimitPolicy): Promise<Take> {
  const bindings = { key, quota: policy.quota, rate: refillPerSecond(policy) };
  const { rows } = await db.raw<{ rows: { tokens: number }[] }>(takeSql, bindings);
  if (rows.length === 1) return { allowed: true, tokens: Number(rows[0].tokens) };
  const peek = await db.raw<{ rows: { tokens: number }[] }>(peekSql, bindings);
  return { allowed: false, tokens: Number(peek.rows[0]?.tokens ?? 0) };
}
