import type { Db } from '../db/database';
import { ApiError } from '../core/errors';
import { rateLimitHeaders } from '../core/rateLimit';
import { LoginFailure } from '../db/models';

/**
 * Counters of failed attempts at a secret (passwords, SEC-3; the metrics token, METRIC-8), kept in the database
 * (`login_failures`) so that every instance behind a load balancer sees them. Each counter is a fixed window.
 */
export interface FailureCounter {
  key: string;
  limit: number;
  windowSeconds: number;
  /** The RateLimit-Policy name of the counter (RATE-1). */
  policy: string;
}

/**
 * SEC-3: failed logins are counted per username *and* client address (so that failures from one address never lock
 * the user out from another: nobody can lock anyone out of password sign-in from afar), and per client address over
 * every username, within a fixed window.
 */
export const loginThrottle = {
  windowSeconds: 15 * 60,
  maxFailuresPerUserAndAddress: 5,
  maxFailuresPerAddress: 20,
};

// The address first: an address (HTTP-12: an IP address, or the socket's) holds no space, so the key is unambiguous.
const userCounter = (username: string, clientIp: string): FailureCounter => ({
  key: `user-addr:${clientIp} ${username.toLowerCase()}`,
  limit: loginThrottle.maxFailuresPerUserAndAddress,
  windowSeconds: loginThrottle.windowSeconds,
  policy: 'failed-logins-per-user-and-address',
});
const addressCounter = (clientIp: string): FailureCounter => ({
  key: `ip:${clientIp}`,
  limit: loginThrottle.maxFailuresPerAddress,
  windowSeconds: loginThrottle.windowSeconds,
  policy: 'failed-logins-per-address',
});
/** SEC-7: one slot per window: the first refusal by `counter` in a window is audited, the others are not. */
const refusalMark = (counter: FailureCounter): FailureCounter => ({ ...counter, key: `refused:${counter.key}`, limit: 1 });

/**
 * Takes one slot of a counter in a single statement, so that concurrent attempts on any instance each get their own
 * slot: counts one more unless the counter is at its limit inside the window (a window that has elapsed restarts at 1).
 * False when the counter is full.
 */
async function takeSlot(db: Db, { key, limit, windowSeconds }: FailureCounter): Promise<boolean> {
  const table = LoginFailure.tableName;
  const elapsed = `${table}.window_started_at < now() - make_interval(secs => ${Math.trunc(windowSeconds)})`;
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `INSERT INTO ${table} (key, failures, window_started_at) VALUES (?, 1, now())
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN ${elapsed} THEN 1 ELSE ${table}.failures + 1 END,
       window_started_at = CASE WHEN ${elapsed} THEN now() ELSE ${table}.window_started_at END
     WHERE ${elapsed} OR ${table}.failures < ?
     RETURNING failures`,
    [key, limit],
  );
  return rows.length === 1;
}

/** An attempt that turned out right no longer counts as a failure. */
export async function giveSlotBack(db: Db, { key }: FailureCounter): Promise<void> {
  await LoginFailure.query(db).findById(key).patch({ failures: db.raw('greatest(failures - 1, 0)') });
}

async function throttled(db: Db, { key, limit, policy, windowSeconds }: FailureCounter, message: string): Promise<ApiError> {
  const row: { windowStartedAt: Date } | undefined = await LoginFailure.query(db).findById(key).select('windowStartedAt');
  const windowEnds = (row ? new Date(row.windowStartedAt).getTime() : 0) + windowSeconds * 1000;
  const retryAfterSeconds = Math.min(windowSeconds, Math.max(1, Math.ceil((windowEnds - Date.now()) / 1000)));
  return new ApiError('TOO_MANY_REQUESTS', message, { retryAfterSeconds }, rateLimitHeaders({ policy, quota: limit, windowSeconds, retryAfterSeconds }));
}

/** Thrown inside the counting transaction to roll back the slots already taken. */
class CounterFull extends Error {
  constructor(readonly counter: FailureCounter) {
    super(counter.policy);
  }
}

/**
 * Counts an attempt as a failure before the secret is checked, on every counter; 429 `message` when one is already at
 * its limit (then nothing stays counted: the slots are taken in one transaction, rolled back when one is full).
 * Counting first is what makes the limit hold under concurrency: the database hands out at most `limit` slots per
 * window, whatever the number of simultaneous attempts or instances. An attempt that succeeds gives its slots back.
 *
 * A refused attempt calls `onFirstRefusal` (which audits it, SEC-7) once per counter and window: the first refusal
 * takes the counter's refusal mark (a one-slot counter of the same window length, in the same table), so at most one
 * refusal per counter and window is reported, however many attempts come.
 */
export async function countFailedAttempt(
  db: Db,
  counters: readonly FailureCounter[],
  message: string,
  onFirstRefusal: (refusal: { policy: string; retryAfterSeconds: number }) => Promise<void> = async () => {},
): Promise<void> {
  try {
    await db.transaction(async (trx) => {
      for (const counter of counters) {
        if (!(await takeSlot(trx, counter))) throw new CounterFull(counter);
      }
    });
  } catch (error) {
    if (!(error instanceof CounterFull)) throw error;
    const refusal = await throttled(db, error.counter, message);
    if (await takeSlot(db, refusalMark(error.counter))) {
      await onFirstRefusal({ policy: error.counter.policy, retryAfterSeconds: Number(refusal.data.retryAfterSeconds) });
    }
    throw refusal;
  }
}

/**
 * SEC-3: counts a login attempt as a failure before the password is checked, on the username-and-address and the
 * address counters (countFailedAttempt); SEC-7: the first refusal per counter and window goes to `onFirstRefusal`.
 */
export async function countLoginAttempt(
  db: Db,
  username: string,
  clientIp: string,
  onFirstRefusal?: (refusal: { policy: string; retryAfterSeconds: number }) => Promise<void>,
): Promise<void> {
  await countFailedAttempt(db, [userCounter(username, clientIp), addressCounter(clientIp)], 'Too many failed login attempts, retry later', onFirstRefusal);
}

/** After a successful login: the failures of that username from this address are forgiven and the attempt no longer counts against the address. */
export async function loginSucceeded(db: Db, username: string, clientIp: string): Promise<void> {
  await db.transaction(async (trx) => {
    await LoginFailure.query(trx).deleteById(userCounter(username, clientIp).key);
    await giveSlotBack(trx, addressCounter(clientIp));
  });
}
