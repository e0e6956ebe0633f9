import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { parseDocument, visit } from 'yaml';
import { ApiError, badRequest } from '../core/errors';
import { yamlMediaTypes } from '../core/mediaTypes';
import { isExactNumber } from './exactNumbers';
import { bodyRefusal } from './jsonBody';

/**
 * The text of a YAML body as data, as JSON.parse gives it for JSON: the core schema (no dates or binary), at most 100
 * aliases, unique keys. A number whose text the value would not hold exactly is a 400 naming it (INPUT-3),
 * as for JSON; unparsable YAML is a 400 with the parser's first complaint.
 */
export function parseYamlBody(text: string): unknown {
  const document = parseDocument(text, { schema: 'core', uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) {
    const [first] = document.errors;
    throw badRequest(`Failed to parse request body: invalid YAML: ${first.message.split('\n')[0]}`, { line: first.linePos?.[0]?.line ?? null });
  }
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === 'number' && (!Number.isFinite(node.value) || (node.source !== undefined && !isExactNumber(node.source)))) {
        const text = node.source ?? String(node.value);
        throw badRequest(`Invalid number ${text.slice(0, 40)}: it cannot be stored exactly (out of range or too precise)`, { number: text.slice(0, 40) });
      }
    },
  });
  return document.toJS({ maxAliasCount: 100 });
}

/** Reads a YAML body (FILE-1) up to the body limit, with body-parser's refusals mapped as for JSON. */
export function yamlBodyParser(limitBytes: number): RequestHandler {
  const read = express.text({ limit: limitBytes, type: [...yamlMediaTypes] });
  return (req: Request, res: Response, next: NextFunction) => {
    const done = (error?: unknown) => {
      if (error !== undefined) return next(bodyRefusal(error, req));
      try {
        req.body = parseYamlBody(typeof req.body === 'string' ? req.body : '');
        next();
      } catch (refusal) {
        next(refusal instanceof ApiError ? refusal : badRequest('Failed to parse request body: invalid YAML'));
      }
    };
    try {
      read(req, res, done);
    } catch (error) {
      done(error);
    }
  };
}
