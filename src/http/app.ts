import { randomUUID } from 'node:crypto';
import express, { NextFunction, Request, Response } from 'express';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import OpenAPIBackend, { Operation, Request as BackendRequest } from 'openapi-backend';
import type { Logger } from 'pino';
import type { Config } from '../config/config';
import type { Db } from '../db/database';
import { isDatabaseUnavailable } from '../db/errors';
import { assertNotCrossSite, authenticate } from '../identity/authenticate';
import { ApiError, unauthorized } from '../core/errors';
import { precompileRouting } from './fastRouter';
import { createHandlers } from './handlers';
import { boardAccessCompanion } from '../boards/access';
import { jsonBodyParser } from './jsonBody';
import { assertStorableInput } from './requestInput';
import { openApiDocument } from '../core/openapiDocument';
import { PreSerializedJson } from '../core/operation';
import type { HandlerMap, Lifecycle, RequestContext } from '../core/operation';
import { BoardDocumentCache } from '../boards/document/cache';

export interface AppDeps {
  db: Db;
  config: Config;
  logger: Logger;
  lifecycle: Lifecycle;
}

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string | string[]>;
}

function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** No operation takes a body on these methods: one sent is left unread (Node discards it), never a 415 or 413. */
const bodylessMethods = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

function hasBody(req: Request): boolean {
  if (bodylessMethods.has(req.method)) return false;
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function ignoresCredentials(operation: Operation): boolean {
  return Array.isArray(operation.security) && operation.security.length === 0;
}

function errorReply(error: ApiError): Reply {
  return { status: error.status, body: error.toBody(), headers: error.headers };
}

function buildApi(): OpenAPIBackend {
  const api = new OpenAPIBackend({
    definition: structuredClone(openApiDocument),
    strict: false,
    validate: true,
    coerceTypes: true,
    ajvOpts: { strict: false, allErrors: true },
    customizeAjv: (_original, ajvOpts) => {
      const ajv = new Ajv2020({ ...ajvOpts, strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
      ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
      ajv.addFormat('password', () => true);
      return ajv;
    },
  });
  // openapi-backend checks documents against the OAS 3.0 meta-schema only; redocly lints ours instead.
  api.validateDefinition = () => api.document;

  return api;
}

type OperationHandler = (input: { params: unknown; query: unknown; body: unknown }, ctx: RequestContext) => Promise<Reply>;

/** Whether the caller satisfies one of the operation's security requirements (all schemes of it). */
function isAuthorized(operation: Operation, principal: RequestContext['principal']): boolean {
  const requirements = operation.security ?? openApiDocument.security ?? [];
  if (requirements.length === 0) return true;
  const satisfies = (scheme: string) =>
    (scheme === 'ApiKey' && principal?.authMethod === 'apiKey') || (scheme === 'SessionCookie' && principal?.authMethod === 'session');
  return requirements.some((requirement) => Object.keys(requirement).every(satisfies));
}

const idSchema = openApiDocument.components?.schemas?.Id as { pattern: string; maxLength: number };
const idPattern = new RegExp(idSchema.pattern);
const boardRoute = /^\/api\/boards\/([^/]+)/;

/**
 * The board a `/api/boards/{id}…` request is about, as a hint for authentication. Request validation comes after
 * authentication (a missing credential is a 401 before any 400), so the raw path segment is checked against the
 * Id schema here (Id characters need no percent-decoding): anything else gives no hint.
 */
function boardIdOf(request: BackendRequest, operation: Operation): string | undefined {
  if (!operation.path.startsWith('/api/boards/{id}')) return undefined;
  const id = boardRoute.exec(request.path)?.[1];
  return id !== undefined && id.length <= idSchema.maxLength && idPattern.test(id) ? id : undefined;
}

const declaredQueryNames = new WeakMap<Operation, ReadonlySet<string>>();

/**
 * The request's query without the parameters the operation does not declare: those (a cache buster such as `?_=1`)
 * are ignored rather than refused, while the declared ones are validated as usual.
 */
function declaredQuery(operation: Operation, query: Record<string, string | string[]>): Record<string, string | string[]> {
  let names = declaredQueryNames.get(operation);
  if (!names) {
    names = new Set((operation.parameters ?? []).flatMap((parameter) => ('$ref' in parameter || parameter.in !== 'query' ? [] : [parameter.name])));
    declaredQueryNames.set(operation, names);
  }
  for (const name in query) {
    if (!names.has(name)) return Object.fromEntries(Object.entries(query).filter(([key]) => names.has(key)));
  }
  return query;
}

/**
 * Routes, authenticates, validates and runs one request, in that order (so a missing credential is a 401 before any
 * 400), with openapi-backend's router and validator. Its own handleRequest is not used: it parses every request
 * four times and runs a promise per security scheme, which costs more than the rest of a cached board read.
 */
async function dispatch(api: OpenAPIBackend, handlers: HandlerMap, request: BackendRequest, ctx: RequestContext): Promise<Reply> {
  let operation: Operation;
  try {
    operation = api.router.matchOperation(request, true);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('405')) throw new ApiError('METHOD_NOT_SUPPORTED', 'Method not allowed on this path');
    throw new ApiError('NOT_FOUND', 'Not found');
  }
  if (!ignoresCredentials(operation)) {
    const boardId = boardIdOf(request, operation);
    ctx.principal = await authenticate(ctx.db, ctx.headers, boardId === undefined ? {} : { companion: { lookup: boardAccessCompanion, id: boardId } });
    if (!isAuthorized(operation, ctx.principal)) throw unauthorized();
    assertNotCrossSite(ctx.principal, request.method, ctx.headers);
  }
  request.query = declaredQuery(operation, request.query as Record<string, string | string[]>);
  // Path parameters are decoded only when the path has percent-encoding: otherwise they are plain path text.
  const rawParams = request.path.includes('%') ? api.router.parseRequest(request, operation).params : undefined;
  assertStorableInput({ body: request.body, query: request.query, params: rawParams });
  const validation = api.validator.validateRequest(request, operation);
  if (validation.errors) throw new ApiError('BAD_REQUEST', 'Input validation failed', { issues: validation.errors });
  const handler = handlers[operation.operationId as keyof typeof handlers] as OperationHandler | undefined;
  if (!handler) throw new Error(`No handler for operation ${operation.operationId}`);
  // The validator coerced path and query parameters (and the body, in place) to their declared types; an operation
  // without parameters has no parameter validator, hence the parse.
  const coerced = validation.coerced;
  const params = coerced?.params ?? api.router.parseRequest(request, operation).params;
  return handler({ params, query: coerced?.query ?? request.query ?? {}, body: request.body }, ctx);
}

export async function createApp(deps: AppDeps): Promise<express.Express> {
  const { db, config, logger, lifecycle } = deps;
  const api = buildApi();
  await api.init();
  precompileRouting(api);
  const handlers = createHandlers({ boardDocuments: new BoardDocumentCache(config.boardCacheBytes) });

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', process.env.TRUST_PROXY === 'true' ? true : false);
  app.set('etag', false);

  const parseJson = jsonBodyParser(config.bodyLimitBytes);

  // One front middleware (each express layer costs on every request): request id, access log, and the body,
  // which must be JSON (anything else is a 415 before any parsing).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const requestId = (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 128)) || randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    // The access log line is at info: below that level there is nothing to time or write.
    if (logger.isLevelEnabled('info')) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        logger.info(
          {
            requestId,
            method: req.method,
            url: req.originalUrl,
            status: res.statusCode,
            durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
            userId: res.locals.userId,
          },
          'request',
        );
      });
    }
    if (!hasBody(req)) return next();
    if (!isJsonContentType(req.headers['content-type'])) {
      const type = req.headers['content-type'];
      return next(
        new ApiError(
          'UNSUPPORTED_MEDIA_TYPE',
          type ? `Unsupported content type "${type.split(';')[0]}": send application/json` : 'Missing content type: send application/json',
        ),
      );
    }
    parseJson(req, res, next);
  });

  app.use(async (req: Request, res: Response, next: NextFunction) => {
    let requestLogger: Logger | undefined;
    const ctx: RequestContext = {
      db,
      config,
      // Created on first use: most requests never log.
      get logger() {
        requestLogger ??= logger.child({ requestId: res.locals.requestId });
        return requestLogger;
      },
      requestId: res.locals.requestId,
      principal: null,
      // Resolved on first use (only logins need it): with `trust proxy` it walks X-Forwarded-For.
      get clientIp() {
        return req.ip ?? req.socket.remoteAddress ?? 'unknown';
      },
      headers: req.headers,
      lifecycle,
    };
    try {
      const reply = await dispatch(
        api,
        handlers,
        {
          method: req.method,
          path: req.path,
          query: req.query as Record<string, string | string[]>,
          body: req.body,
          headers: req.headers as Record<string, string | string[]>,
          // Present from the start, so that the validator's copy of this request (which sets params) keeps the
          // hidden class of the copies before it.
          params: undefined,
        },
        ctx,
      );
      res.locals.userId = ctx.principal?.userId;
      if (config.validateResponses) assertReplyMatchesContract(api, req, reply, ctx);
      sendReply(res, reply, lifecycle);
    } catch (error) {
      res.locals.userId = ctx.principal?.userId;
      next(error);
    }
  });

  // Every error leaves as {message, code, data}; stack traces and SQL stay in the log.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendReply(res, toErrorReply(error, logger, res.locals.requestId, req), lifecycle);
  });

  return app;
}

function toErrorReply(error: unknown, logger: Logger, requestId: string, req: Request): Reply {
  if (error instanceof ApiError) return errorReply(error);
  if (isDatabaseUnavailable(error)) {
    logger.warn({ requestId, err: error, method: req.method, url: req.originalUrl }, 'database unavailable');
    return errorReply(new ApiError('SERVICE_UNAVAILABLE', 'Database unavailable, retry later'));
  }
  logger.error({ requestId, err: error, method: req.method, url: req.originalUrl }, 'unhandled error');
  return errorReply(new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', { requestId }));
}

function sendReply(res: Response, reply: Reply, lifecycle: Lifecycle): void {
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  // While shutting down, no connection is kept alive for another request.
  if (lifecycle.shuttingDown) res.setHeader('Connection', 'close');
  res.status(reply.status);
  if (reply.body === undefined || reply.status === 204 || reply.status === 304) {
    res.end();
    return;
  }
  if (reply.body instanceof PreSerializedJson) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(reply.body.json);
    return;
  }
  // A handler that set a non-JSON content type (the HTML reference) sends its string body as is.
  const contentType = res.getHeader('content-type');
  if (typeof reply.body === 'string' && typeof contentType === 'string' && !isJsonContentType(contentType)) {
    res.send(reply.body);
    return;
  }
  res.json(reply.body);
}

/** Test-mode contract check: a reply that breaks the OpenAPI document becomes a 500 and a log line. */
function assertReplyMatchesContract(api: OpenAPIBackend, req: Request, reply: Reply, ctx: RequestContext): void {
  const operation = api.matchOperation({ method: req.method, path: req.path, headers: {}, query: {} } as never);
  if (!operation) return;
  const declared = operation.responses?.[String(reply.status)];
  if (!declared) throw new Error(`Contract violation: ${operation.operationId} returned undeclared status ${reply.status}`);
  if (reply.body === undefined) return;
  const body = reply.body instanceof PreSerializedJson ? JSON.parse(reply.body.json.toString()) : reply.body;
  const result = api.validateResponse(body, operation, reply.status);
  if (result.errors && result.errors.length > 0) {
    ctx.logger.error({ operationId: operation.operationId, errors: result.errors }, 'response violates the contract');
    throw new Error(`Contract violation: ${operation.operationId} ${reply.status}: ${JSON.stringify(result.errors).slice(0, 500)}`);
  }
}

