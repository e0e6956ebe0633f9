/**
 * LIVEVIEW-2: when the page asks a live tile's data again. Pure (the clock is the `now` it is given), tested in Node
 * (test/pages/live-rules.test.ts).
 */
import { retryAfterMs } from '../statusSchedule';

export interface LiveAnswer {
  /** The HTTP status of the data operation; 0 when no answer came. */
  status: number;
  retryAfter: string | null;
  /** The envelope's TTL (seconds): the server serves one answer that long, so asking sooner brings nothing new. */
  ttlSeconds: number;
  /** Every result is an error (the services did not answer); a tile without results is not failing. */
  allFailed: boolean;
}

export const liveTimes = { minMs: 5_000, backoffMaxMs: 300_000, retryAfterMaxMs: 3_600_000 };

/**
 * The wait before the next ask, given the failures in a row before this answer; null when the tile is not asked again
 * (a kind without live data, an item that left the board). A good answer: the TTL (at least 5 s), or the item's own
 * `refreshInterval` when longer. A failed one (no answer, 429, 5xx, every service failing): the server's
 * `Retry-After` when it sends one (at most an hour), else the regular wait doubled per failure in a row, at most 5 min.
 */
export function nextLiveAsk(answer: LiveAnswer, failures: number, now: number, refreshIntervalSeconds?: number): { delayMs: number | null; failures: number } {
  if (answer.status === 404 || (answer.status === 200 && answer.ttlSeconds === 0)) return { delayMs: null, failures: 0 };
  const regular = Math.max(liveTimes.minMs, answer.ttlSeconds * 1000, (refreshIntervalSeconds ?? 0) * 1000);
  if (answer.status === 200 && !answer.allFailed) return { delayMs: regular, failures: 0 };
  const failed = failures + 1;
  const told = retryAfterMs(answer.retryAfter, now);
  if (told !== null) return { delayMs: Math.min(liveTimes.retryAfterMaxMs, Math.max(told, liveTimes.minMs)), failures: failed };
  return { delayMs: Math.min(liveTimes.backoffMaxMs, regular * 2 ** failed), failures: failed };
}
