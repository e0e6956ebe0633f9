/**
 * IDEM-1..6: the store of Idempotency-Keys (idempotency_keys). The database decides, across every instance, which
 * request with a key runs: the claim is one statement in its own short transaction before the work (the primary key
 * (user, key) lets one insert win), and the answer is written to the claimed row after it.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database';
import { IdempotencyKey } from '../db/models';
import { answerTtlSeconds, claimLeaseSeconds, type StoredAnswer, type StoredKey } from './rules';

const table = IdempotencyKey.tableName;

/**
 * Claims `key` for a request of `fingerprint`: its claim token, or null when another row holds the key. A row whose
 * answer expired (IDEM-5) is taken afresh; so is a claim of the same payload past its lease (IDEM-4: its instance
 * stopped mid-request).
 */
export async function claimKey(db: Db, userId: string, key: string, fingerprint: string): Promise<string | null> {
  const token = randomUUID();
  const { rows } = await db.raw<{ rows: { token: string }[] }>(
    `INSERT INTO ${table} AS k (user_id, key, fingerprint, claim_token, claimed_until, expires_at)
     VALUES (?, ?, ?, ?, now() + make_interval(secs => ?), now() + make_interval(secs => ?))
     ON CONFLICT (user_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, claim_token = excluded.claim_token,
       claimed_until = excluded.claimed_until, expires_at = excluded.expires_at, status = NULL, headers = NULL, body = NULL, content_type = NULL
     WHERE k.expires_at <= now() OR (k.status IS NULL AND k.claimed_until <= now() AND k.fingerprint = excluded.fingerprint)
     RETURNING claim_token AS token`,
    [userId, key, fingerprint, token, claimLeaseSeconds, answerTtlSeconds],
  );
  return rows[0]?.token === token ? token : null;
}

/** The row holding `key` as a new request sees it (null when there is none, or only an expired one). */
export async function readKey(db: Db, userId: string, key: string): Promise<StoredKey | null> {
  const row = await IdempotencyKey.query(db)
    .where({ userId, key })
    .where('expiresAt', '>', db.raw('now()'))
    .select('fingerprint', 'status', 'headers', 'body', 'contentType')
    .first();
  if (!row) return null;
  const answer: StoredAnswer | null =
    row.status === null ? null : { status: row.status, headers: row.headers ?? {}, body: row.body, contentType: row.contentType };
  return { fingerprint: row.fingerprint, answer };
}

/** Stores the claimed request's answer (kept until the row's expiry) and ends the claim, while the claim is still this request's. */
export async function storeAnswer(db: Db, userId: string, key: string, token: string, answer: StoredAnswer): Promise<void> {
  await IdempotencyKey.query(db)
    .where({ userId, key, claimToken: token })
    .patch({
      status: answer.status,
      headers: JSON.stringify(answer.headers) as unknown as Record<string, string>,
      body: answer.body,
      contentType: answer.contentType,
      claimToken: null,
      claimedUntil: null,
    });
}

/** Frees the key of a request whose answer is not kept (IDEM-1), while the claim is still this request's. */
export async function releaseKey(db: Db, userId: string, key: string, token: string): Promise<void> {
  await IdempotencyKey.query(db).where({ userId, key, claimToken: token }).delete();
}

/** IDEM-5: deletes rows whose answer expired and that no live claim holds (the hourly prune). */
export async function pruneIdempotencyKeys(db: Db): Promise<number> {
  return IdempotencyKey.query(db)
    .where('expiresAt', '<=', db.raw('now()'))
    .where((q) => q.whereNull('claimedUntil').orWhere('claimedUntil', '<=', db.raw('now()')))
    .delete();
}
