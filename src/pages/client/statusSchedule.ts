/**
 * PING-5: when the page asks for the apps' reachability again. Pure (no DOM, no clock but the `now` it is given), so
 * that the schedule is tested in Node (test/pages/widgets-rules.test.ts).
 */
export interface PollState {
  /** Quick asks left while a result is `unknown`. */
  quickRetries: number;
  /** Failed answers in a row (not 200). */
  failures: number;
}

export const firstPoll = (): PollState => ({ quickRetries: 3, failures: 0 });

export const pollTimes = { quickMs: 5_000, regularMs: 60_000, backoffBaseMs: 5_000, backoffMaxMs: 300_000, retryAfterMaxMs: 3_600_000 };

/** A `Retry-After` value (seconds, or an HTTP date) as milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait before the next ask, and the state after this answer. A 200: 5 s while a result is `unknown` (three
 * times at most), else 60 s. Anything else (a 429, a 5xx, no answer: status 0): the server's `Retry-After` when it
 * sends one (at most an hour), else 5 s doubled at each failure in a row, at most 5 min; polling never stops.
 */
export function nextPoll(state: PollState, answer: { status: number; retryAfter: string | null; unknown: boolean }, now: number): { delayMs: number; state: PollState } {
  if (answer.status === 200) {
    const quick = answer.unknown && state.quickRetries > 0;
    return { delayMs: quick ? pollTimes.quickMs : pollTimes.regularMs, state: { quickRetries: quick ? state.quickRetries - 1 : state.quickRetries, failures: 0 } };
  }
  const failures = state.failures + 1;
  const backoff = Math.min(pollTimes.backoffMaxMs, pollTimes.backoffBaseMs * 2 ** (failures - 1));
  const told = retryAfterMs(answer.retryAfter, now);
  return { delayMs: told === null ? backoff : Math.min(pollTimes.retryAfterMaxMs, told), state: { ...state, failures } };
}
