/**
 * App reachability (PING-*): whether an app's address answers, checked by the server, stored in the database.
 *
 * - pure rules: which address an app is checked at, what an answer means;
 * - the store: claiming the checks that are due (at most one instance per app per interval, decided by the database),
 *   storing results, reading them;
 * - the check itself: one bounded HEAD/GET that never follows a redirect, run at most `concurrency` at a time.
 */
import type { Db } from '../db/database';
import type { PingConfig } from '../config/config';
import { whereAmong } from '../db/idList';
import { App, AppReachability } from '../db/models';

export type ReachabilityState = 'up' | 'down' | 'unknown';

export interface AppStatus {
  appId: string;
  state: ReachabilityState;
  httpStatus: number | null;
  checkedAt: string | null;
}

/** PING-2: the address checked: the app's ping URL, else its link when that is an absolute http(s) URL; else none. */
export function pingTarget(app: { pingUrl: string | null; href: string | null }): string | null {
  for (const candidate of [app.pingUrl, app.href]) {
    if (!candidate) continue;
    try {
      const url = new URL(candidate.trim());
      if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
    } catch {
      // a relative link has no host to check
    }
    if (candidate === app.pingUrl) return null; // a ping URL that is set decides, even when unusable
  }
  return null;
}

/** PING-3: any HTTP answer below 500 (redirects included, never followed) means up; 500 and more, or none, down. */
export function stateOfAnswer(httpStatus: number | null): 'up' | 'down' {
  return httpStatus !== null && httpStatus < 500 ? 'up' : 'down';
}

/** A stored result as the rules read it. */
export interface StoredCheck {
  url: string;
  checkedAt: Date | string | null;
  claimedAt: Date | string | null;
}

/**
 * PING-2: whether a check of `url` may be due, by this instance's clock: never checked or checked longer than the
 * interval ago (PING-6: at whatever address: a changed address waits for the app's interval like any other check),
 * and not claimed by a check younger than the lease. Only a filter, so that an answer whose results are fresh writes
 * nothing: the claim statement decides again by the database's clock. Pure.
 */
export function mayBeDue(stored: StoredCheck | undefined, _url: string, now: number, config: PingConfig): boolean {
  if (!stored) return true;
  const time = (value: Date | string | null) => (value === null ? null : new Date(value).getTime());
  const claimed = time(stored.claimedAt);
  if (claimed !== null && claimed > now - (config.timeoutMs * 2 + 1000)) return false;
  const checked = time(stored.checkedAt);
  return checked === null || checked < now - config.intervalMs;
}

/** PING-3: one check, bounded by `timeoutMs` in all (both requests together); redirects are answers, not followed. */
export async function checkAddress(url: string, timeoutMs: number): Promise<{ state: 'up' | 'down'; httpStatus: number | null }> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    let response = await fetch(url, { method: 'HEAD', redirect: 'manual', signal, headers: { 'User-Agent': 'Tessera reachability check' } });
    if (response.status === 405 || response.status === 501) {
      await response.body?.cancel();
      response = await fetch(url, { method: 'GET', redirect: 'manual', signal, headers: { 'User-Agent': 'Tessera reachability check' } });
    }
    await response.body?.cancel(); // the body is never read
    return { state: stateOfAnswer(response.status), httpStatus: response.status };
  } catch {
    return { state: 'down', httpStatus: null };
  }
}

/** PING-4: at most `limit` checks at once on this instance; the others wait their turn. */
export class CheckLimiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

const limiters = new WeakMap<PingConfig, CheckLimiter>();
const limiterFor = (config: PingConfig) => {
  let limiter = limiters.get(config);
  if (!limiter) limiters.set(config, (limiter = new CheckLimiter(config.concurrency)));
  return limiter;
};

/**
 * PING-2: claims, in one statement, the checks of `targets` that are due: never checked, or checked (at any address,
 * PING-6) longer than `intervalMs` ago, and not claimed by a check still running (a claim older than the lease,
 * left by an instance that stopped, no longer counts). The database decides between concurrent viewers and
 * instances: each due app is claimed by exactly one of them. Apps deleted meanwhile are skipped.
 */
export async function claimDueChecks(db: Db, targets: readonly { appId: string; url: string }[], config: PingConfig): Promise<string[]> {
  if (targets.length === 0) return [];
  const leaseMs = config.timeoutMs * 2 + 1000;
  const [reach, apps] = [AppReachability.tableName, App.tableName];
  const { rows } = await db.raw<{ rows: { appId: string }[] }>(
    `INSERT INTO ${reach} (app_id, url, claimed_at)
     SELECT v.app_id, v.url, now() FROM jsonb_to_recordset(?::jsonb) AS v(app_id text, url text) JOIN ${apps} ON ${apps}.id = v.app_id
     ON CONFLICT (app_id) DO UPDATE SET claimed_at = now(), url = excluded.url
     WHERE (${reach}.claimed_at IS NULL OR ${reach}.claimed_at < now() - make_interval(secs => ?))
       AND (${reach}.checked_at IS NULL OR ${reach}.checked_at < now() - make_interval(secs => ?))
     RETURNING app_id AS "appId"`,
    [JSON.stringify(targets.map((t) => ({ app_id: t.appId, url: t.url }))), leaseMs / 1000, config.intervalMs / 1000],
  );
  return rows.map((row) => row.appId);
}

async function recordResult(db: Db, appId: string, url: string, result: { state: 'up' | 'down'; httpStatus: number | null }): Promise<void> {
  await AppReachability.query(db)
    .where({ appId, url })
    .patch({ state: result.state, httpStatus: result.httpStatus, checkedAt: db.fn.now(), claimedAt: null });
}

/**
 * PING-1..5: the statuses of `targets` (app id and the address it is checked at): stored results are read; the checks
 * that may be due are claimed (the database decides) and run (bounded), and the answer waits for them at most one
 * timeout; a check still running then is stored when it ends and shows its previous result now. A result stored for
 * another address than the app's current one is `unknown`. An answer whose results are all fresh writes nothing.
 */
export async function appStatuses(db: Db, targets: readonly { appId: string; url: string | null }[], config: PingConfig): Promise<AppStatus[]> {
  const checkable = targets.filter((t): t is { appId: string; url: string } => t.url !== null);
  type Row = StoredCheck & { appId: string; state: ReachabilityState; httpStatus: number | null };
  const read = async (): Promise<Map<string, Row>> => {
    if (checkable.length === 0) return new Map();
    const rows = await AppReachability.query(db)
      .modify(whereAmong, 'appId', checkable.map((t) => t.appId))
      .select('appId', 'url', 'state', 'httpStatus', 'checkedAt', 'claimedAt')
      .castTo<Row[]>();
    return new Map(rows.map((row) => [row.appId, row]));
  };
  let stored = await read();
  const now = Date.now();
  const due = checkable.filter((t) => mayBeDue(stored.get(t.appId), t.url, now, config));
  const claimed = new Set(await claimDueChecks(db, due, config));
  if (claimed.size > 0) {
    const limiter = limiterFor(config);
    const checks = due
      .filter((t) => claimed.has(t.appId))
      .map((t) =>
        limiter
          .run(() => checkAddress(t.url, config.timeoutMs))
          .then((result) => recordResult(db, t.appId, t.url, result))
          .catch(() => undefined), // the claim's lease runs out and another viewer checks again
      );
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, config.timeoutMs + 250)));
    await Promise.race([Promise.all(checks), bound]);
    clearTimeout(timer);
    stored = await read();
  }
  return [...targets]
    .sort((a, b) => (a.appId < b.appId ? -1 : a.appId > b.appId ? 1 : 0))
    .map((target): AppStatus => {
      const row = stored.get(target.appId);
      if (!target.url || !row || row.url !== target.url || row.checkedAt === null) return { appId: target.appId, state: 'unknown', httpStatus: null, checkedAt: null };
      return { appId: target.appId, state: row.state, httpStatus: row.httpStatus, checkedAt: new Date(row.checkedAt).toISOString() };
    });
}
