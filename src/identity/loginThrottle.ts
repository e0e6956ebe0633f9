import type { Db } from '../db/database';
import { ApiError } from '../http/errors';

/**
 * Failed-login throttling, kept in the database so that every instance behind a load balancer sees it.
 * Counted per username and per client address within a fixed window.
 */
export const loginThrottle = {
  windowSeconds: 15 * 60,
  maxFailuresPerUser: 5,
  maxFailuresPerAddress: 20,
};

function keysFor(username: string, clientIp: string): { key: string; limit: number }[] {
  return [
    { key: `user:${username.toLowerCase()}`, limit: loginThrottle.maxFailuresPerUser },
    { key: `ip:${clientIp}`, limit: loginThrottle.maxFailuresPerAddress },
  ];
}

/** 429 while either counter is at its limit inside the window. */
export async function assertLoginAllowed(db: Db, username: string, clientIp: string, now = new Date()): Promise<void> {
  const keys = keysFor(username, clientIp);
  const rows: { key: string; failures: number; windowStartedAt: Date }[] = await db('login_failures').whereIn(
    'key',
    keys.map((k) => k.key),
  );
  for (const row of rows) {
    const limit = keys.find((k) => k.key === row.key)!.limit;
    const windowEnds = row.windowStartedAt.getTime() + loginThrottle.windowSeconds * 1000;
    if (windowEnds > now.getTime() && row.failures >= limit) {
      const retryAfterSeconds = Math.max(1, Math.ceil((windowEnds - now.getTime()) / 1000));
      throw new ApiError(
        'TOO_MANY_REQUESTS',
        'Too many failed login attempts, retry later',
        { retryAfterSeconds },
        { 'Retry-After': String(retryAfterSeconds) },
      );
    }
  }
}

/** Counts a failure atomically (an upsert), restarting the window when it has elapsed. */
export async function recordLoginFailure(db: Db, username: string, clientIp: string): Promise<void> {
  for (const { key } of keysFor(username, clientIp)) {
    await db.raw(
      `INSERT INTO login_failures (key, failures, window_started_at) VALUES (?, 1, now())
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN login_failures.window_started_at < now() - make_interval(secs => ?) THEN 1 ELSE login_failures.failures + 1 END,
         window_started_at = CASE WHEN login_failures.window_started_at < now() - make_interval(secs => ?) THEN now() ELSE login_failures.window_started_at END`,
      [key, loginThrottle.windowSeconds, loginThrottle.windowSeconds],
    );
  }
}

export async function clearLoginFailures(db: Db, username: string): Promise<void> {
  await db('login_failures').where({ key: `user:${username.toLowerCase()}` }).del();
}
