import path from 'node:path';
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError, badRequest } from '../core/errors';
import { yamlMediaTypes } from '../core/mediaTypes';
import { WorkerPool, WorkerTimeout } from '../core/workerPool';
import { isExactNumber } from './exactNumbers';
import { bodyRefusal } from './jsonBody';
import { maxAliasCount, yamlToData, type YamlData } from '../core/yamlParse';

export interface YamlLimits {
  /** Largest YAML body in bytes (YAML_BODY_LIMIT): YAML costs far more to parse than JSON. */
  bodyBytes: number;
  /** How long one body may take to parse on its worker (YAML_PARSE_TIMEOUT_MS). */
  parseTimeoutMs: number;
  /** Characters of JSON the body may stand for once its aliases are expanded: the JSON body limit. */
  expandedBytes: number;
}

/** The data of a parse, or the 400 it earns: unparsable YAML with the parser's first complaint, or an inexact number (INPUT-3). */
function dataOrRefusal(parsed: YamlData, expandedBytes: number): unknown {
  if (parsed.refusal === undefined) {
    const inexact = parsed.numbers.find((source) => !isExactNumber(source));
    if (inexact !== undefined) {
      throw badRequest(`Invalid number ${inexact.slice(0, 40)}: it cannot be stored exactly (out of range or too precise)`, { number: inexact.slice(0, 40) });
    }
    return parsed.value;
  }
  const refusal = parsed.refusal;
  if (refusal.kind === 'syntax') throw badRequest(`Failed to parse request body: invalid YAML: ${refusal.message}`, { line: refusal.line });
  if (refusal.kind === 'aliases') throw badRequest(`Failed to parse request body: YAML with more than ${maxAliasCount} aliases`, { maxAliasCount });
  // INPUT-5: aliases may not make a body larger than a JSON body could be.
  throw badRequest(`Failed to parse request body: YAML aliases expand beyond ${expandedBytes} bytes`, { limit: expandedBytes });
}

/**
 * The text of a YAML body as data, as JSON.parse gives it for JSON, on this thread: for what the server itself wrote
 * (the contract check of YAML answers). Request bodies go through yamlBodyParser.
 */
export function parseYamlBody(text: string, expandedBytes = Number.MAX_SAFE_INTEGER): unknown {
  return dataOrRefusal(yamlToData(text, { maxAliasCount, maxExpandedSize: expandedBytes }), expandedBytes);
}

/** The worker's code, plain JavaScript, with core/yamlParse.js resolved from here (src/ or build/ alike). */
const workerSource = `
const { parentPort } = require('node:worker_threads');
const { yamlToData } = require(${JSON.stringify(path.join(__dirname, '..', 'core', 'yamlParse.js'))});
parentPort.on('message', (job) => {
  try {
    parentPort.postMessage({ result: yamlToData(job.text, job.limits) });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
`;

/** One worker: a YAML body holds a core however long it takes, so at most one core goes to YAML (INPUT-5). */
const pool = new WorkerPool(workerSource, 'yaml', 1);

/**
 * Reads a YAML body (FILE-1) up to its own limit, with body-parser's refusals mapped as for JSON, and parses it on a
 * worker thread within a time budget (INPUT-5): however costly the YAML, the event loop goes on serving.
 */
export function yamlBodyParser(limits: YamlLimits): RequestHandler {
  const read = express.text({ limit: limits.bodyBytes, type: [...yamlMediaTypes] });
  const job = (text: string) => ({ text, limits: { maxAliasCount, maxExpandedSize: limits.expandedBytes } });
  return (req: Request, res: Response, next: NextFunction) => {
    const done = (error?: unknown) => {
      if (error !== undefined) return next(bodyRefusal(error, req));
      const text = typeof req.body === 'string' ? req.body : '';
      pool.run<YamlData>(job(text), limits.parseTimeoutMs).then(
        (parsed) => {
          try {
            req.body = dataOrRefusal(parsed, limits.expandedBytes);
          } catch (refusal) {
            return next(refusal);
          }
          next();
        },
        (error) =>
          next(
            error instanceof WorkerTimeout
              ? new ApiError('PAYLOAD_TOO_LARGE', `YAML body too costly to parse: it took longer than ${limits.parseTimeoutMs} ms`, { timeoutMs: limits.parseTimeoutMs })
              : badRequest('Failed to parse request body: invalid YAML'),
          ),
      );
    };
    try {
      read(req, res, done);
    } catch (error) {
      done(error);
    }
  };
}
