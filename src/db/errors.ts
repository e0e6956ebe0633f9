import { ApiError, conflict } from '../core/errors';
/** Classifies database errors: client-caused conflicts versus an unreachable database. */

interface PgLikeError {
  code?: string;
  constraint?: string;
  name?: string;
  message?: string;
}

/**
 * The driver's error: objection wraps database errors of `Model.query()` (UniqueViolationError, DBError, …) and keeps
 * the driver's own in `nativeError`; knex queries throw the driver's error itself.
 */
function driverError(error: unknown): PgLikeError {
  const wrapped = error as { nativeError?: unknown } | null | undefined;
  return (wrapped && typeof wrapped === 'object' && wrapped.nativeError && typeof wrapped.nativeError === 'object' ? wrapped.nativeError : error) as PgLikeError;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = driverError(error);
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint || !!e.message?.includes(constraint));
}

/**
 * FLEET-11: 40P01 (deadlock detected) and 40001 (serialization failure): the database rolled the transaction back
 * because of another one; the same work in a new transaction may well succeed.
 */
export function isTransactionCollision(error: unknown): boolean {
  const code = driverError(error)?.code;
  return code === '40P01' || code === '40001';
}

export function isForeignKeyViolation(error: unknown): boolean {
  return driverError(error)?.code === '23503';
}

/** 57014: a statement ended by `statement_timeout` (DB-1). */
const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300', '57014']);

/** True when the database cannot be reached (refused, terminated, pool exhausted, out of time: DB-1): a 503, not a 500. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = driverError(error);
  if (!e) return false;
  if (e.code && (unavailableCodes.has(e.code) || e.code.startsWith('08'))) return true;
  if (e.name === 'KnexTimeoutError') return true;
  // `Query read timeout` and `timeout expired` are pg's own: no answer to a statement, or to a connection being opened.
  const message = e.message ?? '';
  return /Connection terminated|terminating connection|Client has encountered a connection error|connection is closed|PGlite is closed|Unable to acquire a connection|Query read timeout|^timeout expired$/i.test(message);
}

/** PROV-5: SQLSTATE of the trigger that refuses writes to a board provisioned with allowApiUpdates false. */
const provisionedCode = 'TSPRV';

/** PROV-5: the refusal of a write to a provisioned board as the 409 every surface answers: it names the file to change. */
export function provisionedBoardConflict(error: unknown): ApiError | undefined {
  const e = error as PgLikeError & { detail?: string; hint?: string };
  if (e?.code !== provisionedCode) return undefined;
  const file = e.detail ?? '';
  const source = e.hint ?? null;
  // The file by its name in its provisioning directory and the source's label: never a server path (migration 0013).
  const from = source === null ? file : `${file} of ${source}`;
  return conflict(`Board is provisioned from ${from}; change that file instead (allowApiUpdates is false)`, { file, source });
}

/** An error as the client is to be answered: ApiErrors as they are, and the database's refusals that are the client's (PROV-5). */
export function asApiError(error: unknown): unknown {
  return provisionedBoardConflict(error) ?? error;
}
