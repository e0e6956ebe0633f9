export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_SUPPORTED'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNPROCESSABLE_CONTENT'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_SERVER_ERROR'
  | 'BAD_GATEWAY'
  | 'SERVICE_UNAVAILABLE';

const statusOf: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  BAD_GATEWAY: 502,
  SERVICE_UNAVAILABLE: 503,
};

export interface ErrorBody {
  message: string;
  code: ErrorCode;
  data: Record<string, unknown>;
}

/** An error meant for the client: its message and data are sent as they are. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = statusOf[code];
  }
  toBody(): ErrorBody {
    return { message: this.message, code: this.code, data: this.data };
  }
}

export const badRequest = (message: string, data?: Record<string, unknown>) => new ApiError('BAD_REQUEST', message, data);
/** AUTH-5: every 401 names the ways to authenticate: the `ApiKey` header, or the same key as a bearer token. */
export const authenticateChallenge = 'ApiKey realm="tessera", Bearer realm="tessera"';
export const unauthorized = (message = 'Authentication required') => new ApiError('UNAUTHORIZED', message, {}, { 'WWW-Authenticate': authenticateChallenge });
export const forbidden = (message = 'Permission denied', data?: Record<string, unknown>) => new ApiError('FORBIDDEN', message, data);
export const notFound = (message = 'Not found') => new ApiError('NOT_FOUND', message);
export const conflict = (message: string, data?: Record<string, unknown>) => new ApiError('CONFLICT', message, data);
export const preconditionFailed = (message: string, data?: Record<string, unknown>) =>
  new ApiError('PRECONDITION_FAILED', message, data);
