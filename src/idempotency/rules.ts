/**
 * IDEM-1..6: the pure rules of Idempotency-Key requests (IETF draft-ietf-httpapi-idempotency-key-header): the key as
 * sent, the fingerprint of a request's payload, what a stored row means for a new request, and an answer as stored
 * and replayed. No I/O.
 */
import { createHash } from 'node:crypto';
import { PreSerializedJson, ResponseTakeover, TextBody } from '../core/operation';

/** IDEM-1: how long a stored answer is replayed. */
export const answerTtlSeconds = 24 * 3600;
/**
 * IDEM-4: how long a claim holds without an answer. A request still running is refused (409) for this long; past it
 * the claim is taken to be abandoned (its instance stopped mid-request) and the same request may run again.
 */
export const claimLeaseSeconds = 300;

/** IDEM-1: the key as sent, bare or as a structured-field string (`"…"`): both name the same key. The contract bounds it. */
export function keyOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

/** JSON with object keys sorted at every depth: two bodies that differ only in key order are one payload. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as object)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** What makes two requests with one key the same request (IDEM-3). */
export interface Payload {
  operationId: string;
  method: string;
  path: string;
  query: unknown;
  ifMatch: string | undefined;
  body: unknown;
}

/** IDEM-3: the fingerprint of a request's payload: operation, method, path, query, If-Match and body (keys in any order). */
export function fingerprintOf(payload: Payload): string {
  const text = canonicalJson([payload.operationId, payload.method.toUpperCase(), payload.path, payload.query ?? {}, payload.ifMatch ?? null, payload.body ?? null]);
  return createHash('sha256').update(text).digest('base64url');
}

/** A stored row as a new request with the same key sees it. */
export interface StoredKey {
  fingerprint: string;
  answer: StoredAnswer | null;
}

export type Decision = { kind: 'replay'; answer: StoredAnswer } | { kind: 'reused' } | { kind: 'inFlight' };

/** IDEM-2..4: another payload is 422 whatever the state; the same one replays the answer, or is 409 while it runs. */
export function decide(stored: StoredKey, fingerprint: string): Decision {
  if (stored.fingerprint !== fingerprint) return { kind: 'reused' };
  if (stored.answer) return { kind: 'replay', answer: stored.answer };
  return { kind: 'inFlight' };
}

/** An answer as the pipeline handles it. */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string | string[]>;
}

/** An answer as stored: its body as text, and its content type when not JSON. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: string | null;
  contentType: string | null;
}

/**
 * IDEM-1: whether an answer is kept: a success whose body can be stored (not a stream the handler writes itself).
 * An error answer is not: nothing was written (every write is one transaction), so the key is free again.
 */
export function isKept(answer: Answer): boolean {
  return answer.status >= 200 && answer.status < 300 && !(answer.body instanceof ResponseTakeover);
}

export function toStored(answer: Answer): StoredAnswer {
  const { body } = answer;
  const headers = answer.headers ?? {};
  if (body === undefined) return { status: answer.status, headers, body: null, contentType: null };
  if (body instanceof PreSerializedJson) return { status: answer.status, headers, body: body.bytes().toString('utf8'), contentType: null };
  if (body instanceof TextBody) return { status: answer.status, headers, body: body.text, contentType: body.contentType };
  return { status: answer.status, headers, body: JSON.stringify(body), contentType: null };
}

/** IDEM-2: the stored answer as sent again: the same status, headers and body, marked `Idempotent-Replayed: true`. */
export function replayOf(stored: StoredAnswer): Answer {
  const headers = { ...stored.headers, 'Idempotent-Replayed': 'true' };
  if (stored.body === null) return { status: stored.status, headers };
  return { status: stored.status, headers, body: stored.contentType === null ? new PreSerializedJson(stored.body) : new TextBody(stored.body, stored.contentType) };
}
