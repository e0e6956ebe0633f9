import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError, badRequest } from '../core/errors';
import { inexactNumberPath, mayHoldInexactNumber } from './exactNumbers';

interface ParserError {
  type?: string;
  status?: number;
  expose?: boolean;
  message?: string;
  limit?: number;
  charset?: string;
  encoding?: string;
}

/**
 * express.json for request bodies (JSON and `+json` types, inflating gzip, deflate and br), with every refusal of
 * body-parser and what it reads through (raw-body, zlib) turned into an ApiError of its own 4xx status, and a 400
 * for a number the parsed body would not hold exactly (JSON.parse turns `1e400` into Infinity, later stored as
 * null, and rounds `12345678901234567890`). That needs the number's source text, so the raw text of a body that
 * may hold one (a cheap scan) is kept until the body is parsed.
 */
export function jsonBodyParser(limitBytes: number): RequestHandler {
  const suspicious = new WeakMap<Request, string>();
  const parse = express.json({
    limit: limitBytes,
    type: ['application/json', 'application/*+json'],
    strict: false,
    verify: (req, _res, buf, encoding) => {
      const text = buf.toString(Buffer.isEncoding(encoding) ? encoding : 'utf8');
      if (mayHoldInexactNumber(text)) suspicious.set(req as Request, text);
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const done = (error?: unknown) => (error === undefined ? next(inexactNumberRefusal(suspicious.get(req))) : next(bodyRefusal(error, req)));
    try {
      parse(req, res, done);
    } catch (error) {
      done(error);
    }
  };
}

function inexactNumberRefusal(text: string | undefined): ApiError | undefined {
  const path = text === undefined ? null : inexactNumberPath(text);
  if (path === null) return undefined;
  return badRequest(`Invalid number${path ? ` at ${path}` : ''}: it cannot be stored exactly (out of range or too precise)`, { path });
}

/**
 * body-parser's errors are http-errors: a 4xx status (with `expose`) is the client's, most with a `type`; data that
 * does not inflate comes from zlib with a 400 and no type. A 5xx (a stream already read) is ours and stays one.
 */
export function bodyRefusal(error: unknown, req: Request): unknown {
  const refusal = (error ?? {}) as ParserError;
  switch (refusal.type) {
    case 'entity.too.large':
      return new ApiError('PAYLOAD_TOO_LARGE', `Request body larger than ${refusal.limit} bytes`);
    case 'entity.parse.failed':
      return new ApiError('BAD_REQUEST', 'Failed to parse request body: invalid JSON');
    case 'encoding.unsupported':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', `Unsupported content encoding "${refusal.encoding}"`);
    case 'charset.unsupported':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', `Unsupported charset "${refusal.charset}": send UTF-8`);
    case 'request.aborted':
      return new ApiError('BAD_REQUEST', 'Request aborted before its body was complete');
    case 'request.size.invalid':
      return new ApiError('BAD_REQUEST', 'Request body size does not match Content-Length');
    default:
      break;
  }
  const status = refusal.status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return error;
  const encoding = String(req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (refusal.type === undefined && encoding !== 'identity') {
    return new ApiError('BAD_REQUEST', `Failed to decompress request body: not valid ${encoding} data`);
  }
  const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_REQUEST';
  return new ApiError(code, refusal.expose && refusal.message ? `Failed to read request body: ${refusal.message}` : 'Failed to read request body');
}
