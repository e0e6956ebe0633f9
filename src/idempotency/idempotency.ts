/**
 * IDEM-1..4: a request with an Idempotency-Key, run at most once per user and key: claim, run, keep the answer; or
 * replay the kept answer, or refuse. Called by the HTTP pipeline for the operations that declare the header.
 */
import type { Db } from '../db/database';
import { ApiError } from '../core/errors';
import { decide, isKept, replayOf, toStored, type Answer } from './rules';
import { claimKey, readKey, releaseKey, storeAnswer } from './store';

export const keyInFlightMessage = 'A request with this Idempotency-Key is still in progress; retry later';
export const keyReusedMessage = 'This Idempotency-Key was used for another request; use a new key';

/**
 * Runs `run` once for (`userId`, `key`) and `fingerprint`. The claim comes first, in its own statement, so of two
 * requests at once on any instances exactly one runs; the other reads the row: 422 for another payload (IDEM-3),
 * 409 while the first runs (IDEM-4), else the kept answer replayed (IDEM-2). When the first's answer is not kept
 * (an error, IDEM-1) the key is freed and the next request with it runs.
 */
export async function runIdempotent(
  db: Db,
  userId: string,
  key: string,
  fingerprint: string,
  run: () => Promise<Answer>,
  warn: (error: unknown) => void,
): Promise<Answer> {
  // Twice at most: a row deleted between the failed claim and the read (its request failed, or it expired) lets the
  // next claim win.
  for (let attempt = 0; ; attempt++) {
    const token = await claimKey(db, userId, key, fingerprint);
    if (token) return runClaimed(db, userId, key, token, run, warn);
    const stored = await readKey(db, userId, key);
    if (!stored) {
      if (attempt < 1) continue;
      throw new ApiError('CONFLICT', keyInFlightMessage);
    }
    const decision = decide(stored, fingerprint);
    if (decision.kind === 'reused') throw new ApiError('UNPROCESSABLE_CONTENT', keyReusedMessage);
    if (decision.kind === 'inFlight') throw new ApiError('CONFLICT', keyInFlightMessage);
    return replayOf(decision.answer);
  }
}

async function runClaimed(db: Db, userId: string, key: string, token: string, run: () => Promise<Answer>, warn: (error: unknown) => void): Promise<Answer> {
  let answer: Answer;
  try {
    answer = await run();
  } catch (error) {
    // Not freed (the database is down): the claim lapses after its lease.
    await releaseKey(db, userId, key, token).catch(warn);
    throw error;
  }
  // The work is done: its answer goes to the client even when it cannot be kept (the claim then lapses after its
  // lease, and a retry after that runs again: IDEM-4).
  await (isKept(answer) ? storeAnswer(db, userId, key, token, toStored(answer)) : releaseKey(db, userId, key, token)).catch(warn);
  return answer;
}
