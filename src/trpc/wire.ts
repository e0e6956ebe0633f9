/**
 * The tRPC 11 HTTP wire format with the superjson envelope (TRPC-1..3), as external clients (the official
 * `@trpc/client` with the superjson transformer) speak it. No I/O.
 */
import { ApiError, type ErrorCode } from '../core/errors';

/** JSON-RPC codes of the tRPC error names. */
const jsonRpcCodes: Record<string, number> = {
  PARSE_ERROR: -32700,
  BAD_REQUEST: -32600,
  UNAUTHORIZED: -32001,
  FORBIDDEN: -32003,
  NOT_FOUND: -32004,
  METHOD_NOT_SUPPORTED: -32005,
  TIMEOUT: -32008,
  CONFLICT: -32009,
  PRECONDITION_FAILED: -32012,
  PAYLOAD_TOO_LARGE: -32013,
  UNSUPPORTED_MEDIA_TYPE: -32015,
  UNPROCESSABLE_CONTENT: -32022,
  TOO_MANY_REQUESTS: -32029,
  INTERNAL_SERVER_ERROR: -32603,
  SERVICE_UNAVAILABLE: -32603,
};

/** The superjson marker of an undefined value: "no input" from the official client, a void output from us. */
const undefinedMeta = { values: ['undefined'], v: 1 };

/**
 * TRPC-1: the input inside a superjson envelope. No input arrives as no envelope at all, `{"json": null, "meta":
 * {"values": ["undefined"]}}` or `{"json": {}}`; the last one stays `{}`, which no procedure tells from none.
 */
export function unwrapInput(envelope: unknown): unknown {
  if (envelope === undefined || envelope === null) return undefined;
  if (typeof envelope !== 'object' || Array.isArray(envelope) || !('json' in envelope)) {
    throw new ApiError('BAD_REQUEST', 'Input must be a superjson envelope: {"json": <input>}');
  }
  const { json, meta } = envelope as { json: unknown; meta?: { values?: unknown } };
  if (json === null && Array.isArray(meta?.values) && meta.values[0] === 'undefined') return undefined;
  return json;
}

/** TRPC-2: a success; undefined (a 204 of the REST operation) is the void result. */
export function resultOf(output: unknown): { result: { data: { json: unknown; meta?: typeof undefinedMeta } } } {
  return { result: { data: output === undefined ? { json: null, meta: undefinedMeta } : { json: output } } };
}

export interface TrpcError {
  error: { json: { message: string; code: number; data: { code: string; httpStatus: number; path?: string } } };
}

/** TRPC-2: an error with the REST message; the code name and HTTP status as the REST answer has them. */
export function errorOf(error: ApiError | { code: string; message: string; status: number }, path?: string): TrpcError {
  const code = error.code === 'PARSE_ERROR' ? 'PARSE_ERROR' : (error.code as ErrorCode);
  return {
    error: {
      json: {
        message: error.message,
        code: jsonRpcCodes[code] ?? jsonRpcCodes.INTERNAL_SERVER_ERROR,
        data: { code, httpStatus: error.status, ...(path === undefined ? {} : { path }) },
      },
    },
  };
}

/** TRPC-3: `?batch=1` (or `true`) marks a batch. */
export const isBatch = (batch: unknown): boolean => batch === '1' || batch === 'true';

/** The procedure names of a request path (`a.b` or, batched, `a.b,c.d`). */
export function procedureNames(path: string, batch: boolean): string[] {
  return batch ? path.split(',') : [path];
}

/** TRPC-3: the inputs of a batch (`{"0": …, "1": …}`), one per procedure; of a single call, its one input. */
export function inputsOf(raw: unknown, count: number, batch: boolean): unknown[] {
  if (!batch) return [raw];
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw new ApiError('BAD_REQUEST', 'A batch input must be an object keyed by position: {"0": …, "1": …}');
  }
  return Array.from({ length: count }, (_value, i) => (raw as Record<string, unknown> | undefined)?.[String(i)]);
}

/** TRPC-3: a batch answers the common status of its calls, or 207 when they differ. */
export function batchStatus(statuses: number[]): number {
  return statuses.every((status) => status === statuses[0]) ? statuses[0] : 207;
}
