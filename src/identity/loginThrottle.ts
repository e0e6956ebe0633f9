import type { Db } from '../db/database';
import { ApiError } from '../core/errors';
import { rateLimitHeaders } from '../core/rateLimit';
import { LoginFailure } from '../db/models';

/**
 * Failed-login throttling, kept in the database so that every instance behind a load balancer sees it.
 * Counted per username and per client address within a fixed window.
 */
export const loginThrottle = {
  windowSeconds: 15 * 60,
  maxFailuresPerUser: 5,
  maxFailuresPerAddress: 20,
};

interface Counter {
  key: string;
  limit: number;
  /** The RateLimit-Policy name of the counter (RATE-1). */
  policy: string;
}

const userCounter = (username: string): Counter => ({ key: `user:${username.toLowerCase()}`, limit: loginThrottle.maxFailuresPerUser, policy: 'failed-logins-per-user' });
const addressCounter = (clientIp: string): Counter => ({ key: `ip:${clientIp}`, limit: loginThrottle.maxFailuresPerAddress, policy: 'failed-logins-per-address' });

/**
 * Takes one slot of a counter in a single statement, so that concurrent attempts on any instance each get their own
 * slot: counts one more unless the counter is at its limit inside the window (a window that has elapsed restarts at 1).
 * False when the counter is full.
 */
async function takeSlot(db: Db, { key, limit }: Counter): Promise<boolean> {
  const table = LoginFailure.tableName;
  const elapsed = `${table}.window_started_at < now() - make_interval(secs => ${loginThrottle.windowSeconds})`;
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

async function giveSlotBack(db: Db, { key }: Counter): Promise<void> {
  await LoginFailure.query(db).findById(key).patch({ failures: db.raw('greatest(failures - 1, 0)') });
}

async function throttled(db: Db, { key, limit, policy }: Counter): Promise<ApiError> {
  const row: { windowStartedAt: Date } | undefined = await LoginFailure.query(db).findById(key).select('windowStartedAt');
  const windowEnds = (row?.windowStartedAt.getTime() ?? 0) + loginThrottle.windowSeconds * 1000;
  const retryAfterSeconds = Math.max(1, Math.ceil((windowEnds - Date.now()) / 1000));
  return new ApiError(
    'TOO_MANY_REQUESTS',
    'Too many failed login attempts, retry later',
    { retryAfterSeconds },
    rateLimitHeaders({ policy, quota: limit, windowSeconds: loginThrottle.windowSeconds, retryAfterSeconds }),
  );
}

/** Thrown inside the counting transaction to roll back the slots already taken. */
class CounterFull extends Error {
  constructor(readonly counter: Counter) {
    super(counter.policy);
  }
}

/**
 * Counts a login attempt as a failure before the password is checked, on the username's and the address's
 * counters; 429 when either is already at its limit (then nothing stays counted: both slots are taken in one
 * transaction, rolled back when the second is full). Counting first is what makes the limit hold under concurrency:
 * the database hands out at most `limit` slots per window, whatever the number of simultaneous attempts or
 * instances. A successful login gives its slots back (loginSucceeded).
 */
export async function countLoginAttempt(db: Db, username: string, clientIp: string): Promise<void> {
  try {
    await db.transaction(async (trx) => {
      for (const counter of [userCounter(username), addressCounter(clientIp)]) {
        if (!(await takeSlot(trx, counter))) throw new CounterFull(counter);
      }
    });
  } catch (error) {
    if (error instanceof CounterFull) throw await throttled(db, error.counter);
    throw error;
  }
}

/** After a successful login: the username's failures are forgiven and the attempt no longer counts against the address. */
export async function loginSucceeded(db: Db, username: string, clientIp: string): Promise<void> {
  await db.transaction(async (trx) => {
    await LoginFailure.query(trx).deleteById(userCounter(username).key);
    await giveSlotBack(trx, addressCounter(clientIp));
  });
}
