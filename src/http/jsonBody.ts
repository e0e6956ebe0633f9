import { isAscii } from 'node:buffer';
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError, badRequest } from '../core/errors';
import { inexactNumberPath, mayHoldInexactNumber } from './exactNumbers';
import { noteParsedBody } from './requestInput';

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
 * JSON request bodies (JSON and `+json` types, inflating gzip, deflate and br): read as bytes by express.raw (whose
 * refusals, and those of what it reads through, raw-body and zlib, become an ApiError of their own 4xx status),
 * decoded once and parsed here, as express.json would (UTF charsets only, a BOM dropped, any JSON value, an empty
 * body as `{}`), and refused with a 400 for a number the parsed body would not hold exactly (JSON.parse turns `1e400`
 * into Infinity, later stored as null, and rounds `12345678901234567890`), which needs the number's source text.
 * express.json would decode the bytes a second time for that check: a whole-board PUT is a megabyte.
 */
export function jsonBodyParser(limitBytes: number): RequestHandler {
  const read = express.raw({ limit: limitBytes, type: ['application/json', 'application/*+json'] });
  return (req: Request, res: Response, next: NextFunction) => {
    const charset = charsetOf(req);
    if (!charset.startsWith('utf-') && charset !== 'utf8') return next(unsupportedCharset(charset));
    const done = (error?: unknown) => {
      if (error !== undefined) return next(bodyRefusal(error, req));
      try {
        req.body = Buffer.isBuffer(req.body) ? parseJsonText(decode(req.body, charset)) : req.body;
        next();
      } catch (refusal) {
        next(refusal);
      }
    };
    try {
      read(req, res, done);
    } catch (error) {
      done(error);
    }
  };
}

/** The charset parameter of the request's content type, lower-cased; UTF-8 when there is none. */
function charsetOf(req: Request): string {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(req.headers['content-type'] ?? '');
  return (match?.[1] ?? match?.[2] ?? 'utf-8').toLowerCase() || 'utf-8';
}

const unsupportedCharset = (charset: string) => new ApiError('UNSUPPORTED_MEDIA_TYPE', `Unsupported charset "${charset}": send UTF-8`);

/** The body's text in its UTF charset, without a byte order mark; 415 for a charset that is not one. */
function decode(bytes: Buffer, charset: string): string {
  let text: string;
  // ASCII (most JSON) decodes as latin1, a plain copy, several times faster than UTF-8's checks.
  if (charset === 'utf-8' || charset === 'utf8') text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  else {
    try {
      text = new TextDecoder(charset).decode(bytes);
    } catch {
      throw unsupportedCharset(charset);
    }
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export const invalidJson = () => new ApiError('BAD_REQUEST', 'Failed to parse request body: invalid JSON');
export const bodyTooLarge = (limitBytes: number) => new ApiError('PAYLOAD_TOO_LARGE', `Request body larger than ${limitBytes} bytes`);

/** The JSON value of a body's text: 400 when it is not JSON or holds a number it would not hold exactly (INPUT-3). */
function parseJsonText(text: string): unknown {
  if (text.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidJson();
  }
  const inexact = mayHoldInexactNumber(text) ? inexactNumberRefusal(text) : undefined;
  if (inexact) throw inexact;
  noteParsedBody(value, text);
  return value;
}

function inexactNumberRefusal(text: string): ApiError | undefined {
  const path = inexactNumberPath(text);
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
      return bodyTooLarge(refusal.limit!);
    case 'entity.parse.failed':
      return invalidJson();
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
