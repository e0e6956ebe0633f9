import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import express, { NextFunction, Request, Response } from 'express';
import type { OpenAPIValidator } from 'openapi-backend';
import { buildRequestValidator, requestSchemaRoots, validateInvocation, validationFailure } from '../core/requestValidation';
import type { Operation, Request as BackendRequest } from 'openapi-backend';
import type { Logger } from 'pino';
import type { Config } from '../config/config';
import type { Db } from '../db/database';
import { asApiError, isDatabaseUnavailable } from '../db/errors';
import { assertNotCrossSite, authenticate } from '../identity/authenticate';
import { ApiError, badRequest, unauthorized } from '../core/errors';
import { RouteTable } from './routes';
import { jsonBodyParser } from './jsonBody';
import { parseYamlBody, yamlBodyParser } from './yamlBody';
import { isYamlContentType } from '../core/mediaTypes';
import { assertStorableInput } from './requestInput';
import { dereferencedDocument, openApiDocument } from '../core/openapiDocument';
import { PreSerializedJson, ResponseTakeover, TextBody } from '../core/operation';
import type { HandlerMap, InvokeInput, InvokeResult, Lifecycle, OperationId, RequestContext } from '../core/operation';
import type { KeyCompanionLookup } from '../identity/apiKeys';
import { compress, type EncodedForms } from '../core/contentCoding';
import { compressionThreshold, negotiateCoding } from './compression';
import { callerKey, invokedClassOf, rateClassOf, rateLimitFields, rateLimitedMessage, requestCost, secondsUntilToken, type RateClass } from '../ratelimit/classes';
import { bucketsFor, type TokenBuckets } from '../ratelimit/buckets';
import { metrics, observeOperation } from '../observability/metrics';
import type { Surface } from '../core/operation';
import { runIdempotent } from '../idempotency/idempotency';
import { answerHeaders, corsPolicyOf, isListedOrigin, preflightHeaders, type CorsPolicy } from './cors';
import { fingerprintOf, keyOf } from '../idempotency/rules';
import type { McpOAuthConfig } from '../config/config';
import { bearerChallenge } from '../identity/oidc/mcpResource';

/**
 * A lookup the API-key check may run in its own query for the resource a request is about (see KeyCompanionLookup):
 * `idOf` names that resource from the routed operation and its path parameters, or gives undefined.
 */
export interface KeyCompanion {
  lookup: KeyCompanionLookup;
  idOf(operation: Operation, params: Record<string, string>): string | undefined;
}

export interface AppDeps {
  db: Db;
  config: Config;
  logger: Logger;
  lifecycle: Lifecycle;
  /** operationId -> handler (src/handlers.ts builds it from the capabilities). */
  handlers: HandlerMap;
  companion?: KeyCompanion;
  /**
   * Error bodies of another wire format, by path prefix (the tRPC endpoints answer errors as tRPC does): for an
   * error of a request under `prefix`, `body` gives what is sent instead of `{message, code, data}`.
   */
  errorFormats?: { prefix: string; body(error: ApiError, path: string): unknown }[];
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

/**
 * Whether an answer leaves a body unread that is still arriving and is larger than `limit` (or of unknown length).
 * Node reads an unread body to its end after the answer (no parsing, so no CPU to speak of), keeping the connection
 * alive and the client's upload unbroken; past the body limit it is not worth reading.
 */
function leavesLargeBodyUnread(req: Request, limit: number): boolean {
  if (!hasBody(req) || req.complete) return false;
  const length = Number(req.headers['content-length']);
  return !(length <= limit);
}

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function ignoresCredentials(operation: Operation): boolean {
  return Array.isArray(operation.security) && operation.security.length === 0;
}

function errorReply(error: ApiError): Reply {
  return { status: error.status, body: error.toBody(), headers: error.headers };
}

type OperationHandler = (input: { params: unknown; query: unknown; body: unknown }, ctx: RequestContext) => Promise<Reply>;

/**
 * MCP-5: an operation's own `x-www-authenticate` replaces the AUTH-5 challenge of its 401s (the MCP endpoint names
 * the API key only, so MCP clients do not take the 401 for the start of an OAuth discovery). MCPAUTH-3: where the
 * operation takes provider tokens and OAuth is on, the challenge is `Bearer resource_metadata="…"` instead, with
 * `error="invalid_token"` when the request sent a credential.
 */
function withOperationChallenge(operation: Operation, error: unknown, oauth: McpOAuthConfig | null, sentCredential: boolean): unknown {
  if (!(error instanceof ApiError) || error.code !== 'UNAUTHORIZED') return error;
  if (oauth && takesProviderTokens(operation)) {
    const challenge = bearerChallenge(oauth, sentCredential ? { description: error.message } : null);
    return new ApiError(error.code, error.message, error.data, { ...error.headers, 'WWW-Authenticate': challenge });
  }
  const challenge = (operation as { 'x-www-authenticate'?: string })['x-www-authenticate'];
  if (!challenge) return error;
  return new ApiError(error.code, error.message, error.data, { ...error.headers, 'WWW-Authenticate': challenge });
}

const providerTokenOperations = new WeakMap<Operation, boolean>();

/** MCPAUTH-5: whether an operation takes the provider's access tokens (it lists the `ProviderToken` scheme). */
function takesProviderTokens(operation: Operation): boolean {
  let takes = providerTokenOperations.get(operation);
  if (takes === undefined) {
    takes = (operation.security ?? []).some((requirement) => 'ProviderToken' in requirement);
    providerTokenOperations.set(operation, takes);
  }
  return takes;
}

/**
 * Whether the caller satisfies one of the operation's security requirements (all schemes of it). MCPAUTH-5: a
 * provider token satisfies `ProviderToken`, and, for an operation an MCP tool invokes (`invoked`), what an API key of
 * its user would.
 */
function isAuthorized(operation: Operation, principal: RequestContext['principal'], invoked = false): boolean {
  const requirements = operation.security ?? openApiDocument.security ?? [];
  if (requirements.length === 0) return true;
  const method = principal?.authMethod;
  const satisfies = (scheme: string) =>
    ((scheme === 'ApiKey' || scheme === 'BearerKey') && (method === 'apiKey' || (invoked && method === 'oauth'))) ||
    (scheme === 'SessionCookie' && method === 'session') ||
    (scheme === 'ProviderToken' && method === 'oauth');
  return requirements.some((requirement) => Object.keys(requirement).every(satisfies));
}

const declaredQueryNames = new WeakMap<Operation, ReadonlySet<string>>();

const idempotentOperations = new WeakMap<Operation, boolean>();

/** IDEM-1: whether an operation takes an `Idempotency-Key` (it declares the header parameter in the document). */
function takesIdempotencyKey(operation: Operation): boolean {
  let takes = idempotentOperations.get(operation);
  if (takes === undefined) {
    takes = (operation.parameters ?? []).some((parameter) => !('$ref' in parameter) && parameter.in === 'header' && parameter.name === 'Idempotency-Key');
    idempotentOperations.set(operation, takes);
  }
  return takes;
}

/**
 * The request's query without the parameters the operation does not declare: those (a cache buster such as `?_=1`)
 * are ignored rather than refused (HTTP-4), while the declared ones are validated as usual. An operation marked
 * `x-unknown-query: refuse` (a filtered read where a misspelt filter must not answer everything: AUDIT-9) refuses them
 * with a 400 naming them.
 */
function declaredQuery(operation: Operation, query: Record<string, string | string[]>): Record<string, string | string[]> {
  let names = declaredQueryNames.get(operation);
  if (!names) {
    names = new Set((operation.parameters ?? []).flatMap((parameter) => ('$ref' in parameter || parameter.in !== 'query' ? [] : [parameter.name])));
    declaredQueryNames.set(operation, names);
  }
  for (const name in query) {
    if (names.has(name)) continue;
    const unknown = Object.keys(query).filter((key) => !names.has(key));
    if ((operation as { 'x-unknown-query'?: string })['x-unknown-query'] === 'refuse') {
      throw badRequest(`Unknown query parameter${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ')}`, { parameters: unknown });
    }
    return Object.fromEntries(Object.entries(query).filter(([key]) => names.has(key)));
  }
  return query;
}

/**
 * Whether an operation declares no parameters and no request body: its validator passes every request dispatch gives
 * it (whose query holds only declared parameters, see declaredQuery), so dispatch skips it rather than compiling it on
 * the first request (about 10 ms; the readiness probe is such an operation). invokeOperation validates them all.
 */
const takesNoInput = (operation: Operation) => !operation.requestBody && (operation.parameters ?? []).length === 0;

/**
 * HTTP-12: the client address: the one `trust proxy` makes believed (LB-2) when it is an IP address, else the
 * socket's. An X-Forwarded-For entry is whatever a proxy (or a client behind a proxy that appends) wrote: a string that
 * is not an address (`garbage<script>`, 3,000 characters) is never stored as one.
 */
export function clientAddressOf(req: Pick<Request, 'ip' | 'socket'>): string {
  const believed = req.ip;
  if (believed !== undefined && isIP(believed) !== 0) return believed;
  return req.socket.remoteAddress ?? 'unknown';
}

/** What the pipeline learns of a request on its way (for the metrics and the answer's headers). */
interface Tracking {
  /** The routed operation (METRIC-2 labels by it, never by the raw path). */
  operationId?: string;
  /** RATE-4: the RateLimit fields of a limited operation, sent with whatever it answers. */
  rateHeaders?: Record<string, string>;
}

/** AUDIT-2: the surface of a request, from the operation it was routed to. */
function surfaceOf(operationId: string): Surface {
  if (operationId.startsWith('trpc')) return 'trpc';
  if (operationId.startsWith('mcp')) return 'mcp';
  if (operationId === 'getBoardPage' || operationId === 'getIndexPage' || operationId === 'getPageAsset' || operationId === 'getProposalPage') return 'page';
  return 'rest';
}

/**
 * RATE-2..4: takes `cost` tokens of the caller's bucket of `rateClass` (none when null or not limited); 429 when it
 * has too few. The answer's RateLimit fields are kept in `track` (the request's own class) either way.
 */
async function limitRate(buckets: TokenBuckets, rateClass: RateClass | null, cost: number, ctx: RequestContext, track?: Tracking): Promise<void> {
  const policy = rateClass && ctx.config.rateLimits[rateClass];
  if (!rateClass || !policy) return;
  // The address only for an anonymous caller: resolving it (express's req.ip, through `trust proxy`) costs on every request.
  const take = await buckets.take(`${rateClass}:${callerKey(ctx.principal, () => ctx.clientIp)}`, policy, cost);
  if (track) track.rateHeaders = rateLimitFields(rateClass, policy, take.tokens);
  if (take.allowed) return;
  metrics.rateLimited.inc({ class: rateClass });
  const retryAfterSeconds = secondsUntilToken(policy, take.tokens);
  // RATE-4: the 429 carries the same fields as any answer (`t`: seconds until the bucket is full again, the draft's
  // "quota reset"), and Retry-After the seconds until one request is free.
  throw new ApiError(
    'TOO_MANY_REQUESTS',
    rateLimitedMessage(rateClass, policy),
    { retryAfterSeconds, class: rateClass },
    { ...rateLimitFields(rateClass, policy, take.tokens), 'Retry-After': String(retryAfterSeconds) },
  );
}

interface Dispatcher {
  routes: RouteTable;
  /** RATE-2: the token buckets of the per-caller limits. */
  buckets: TokenBuckets;
  /** CORS-1: the origins of CORS_ORIGINS (null: none). */
  cors: CorsPolicy | null;
  validator: OpenAPIValidator;
  handlers: HandlerMap;
  companion?: KeyCompanion;
  /**
   * Error bodies of another wire format, by path prefix (the tRPC endpoints answer errors as tRPC does): for an
   * error of a request under `prefix`, `body` gives what is sent instead of `{message, code, data}`.
   */
  errorFormats?: { prefix: string; body(error: ApiError, path: string): unknown }[];
}

/**
 * Routes, authenticates, reads the body, validates and runs one request, in that order (so a missing credential is a
 * 401 before any 400, and an anonymous caller cannot make the server read or parse a body: INPUT-5). HEAD runs the GET
 * operation of the path (the body is not sent); OPTIONS answers 204 with `Allow`; a 405 names the allowed methods in
 * `Allow` (HTTP-5).
 */
async function dispatch(
  app: Dispatcher,
  request: BackendRequest,
  ctx: RequestContext,
  readBody: (() => Promise<unknown>) | null,
  track: Tracking,
): Promise<Reply> {
  if (request.method === 'OPTIONS') {
    const allow = app.routes.allowedMethods(request.path);
    if (allow.length === 0) throw new ApiError('NOT_FOUND', 'Not found');
    // CORS-3: a listed origin's preflight is answered with what it may send.
    const preflight = preflightHeaders(app.cors, headerText(ctx.headers.origin), headerText(ctx.headers['access-control-request-method']), allow);
    return { status: 204, headers: { Allow: allow.join(', '), ...preflight } };
  }
  const match = app.routes.route(request.method === 'HEAD' ? 'GET' : request.method, request.path);
  if (!match.found) {
    if (match.status === 405) throw new ApiError('METHOD_NOT_SUPPORTED', 'Method not allowed on this path', {}, { Allow: match.allow.join(', ') });
    throw new ApiError('NOT_FOUND', 'Not found');
  }
  const { operation } = match;
  track.operationId = operation.operationId;
  ctx.surface = surfaceOf(operation.operationId!);
  if (!ignoresCredentials(operation)) {
    const companionId = app.companion?.idOf(operation, match.rawParams);
    const oauth = ctx.config.mcpOAuth;
    const providerTokens = oauth && takesProviderTokens(operation) ? oauth : undefined;
    try {
      ctx.principal = await authenticate(ctx.db, ctx.headers, {
        audit: ctx,
        ...(companionId === undefined ? {} : { companion: { lookup: app.companion!.lookup, id: companionId } }),
        ...(providerTokens ? { providerTokens } : {}),
      });
      if (!isAuthorized(operation, ctx.principal)) throw unauthorized();
    } catch (error) {
      throw withOperationChallenge(operation, error, oauth, ctx.headers.authorization !== undefined || ctx.headers.apikey !== undefined);
    }
  }
  // SEC-5; the login, which takes no credentials, because it starts a cookie session. CORS-5: a listed origin passes
  // where the browser preflighted its request.
  assertNotCrossSite(ctx.principal ?? null, request.method, ctx.headers, operation.operationId === 'login', (origin) => isListedOrigin(app.cors, origin));
  const operationId = operation.operationId!;
  const cost = requestCost(operationId, match.rawParams.procedures, (request.query as Record<string, unknown> | undefined)?.batch);
  await limitRate(app.buckets, rateClassOf(operationId, request.method), cost, ctx, track);
  if (isYamlContentType(headerText(ctx.headers['content-type'])) && !(operation.requestBody as { content?: object } | undefined)?.content?.hasOwnProperty('application/yaml')) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Unsupported content type "${headerText(ctx.headers['content-type'])!.split(';')[0]}": send application/json`);
  }
  if (readBody) request.body = await readBody();
  request.query = declaredQuery(operation, request.query as Record<string, string | string[]>);
  const params = app.routes.decodeParams(match.rawParams);
  assertStorableInput({ body: request.body, query: request.query, params });
  const validation = takesNoInput(operation) ? null : app.validator.validateRequest(request, operation);
  if (validation?.errors) throw validationFailure(validation.errors, requestSchemaRoots(app.validator, operation.operationId!));
  const handler = app.handlers[operation.operationId as keyof HandlerMap] as OperationHandler | undefined;
  if (!handler) throw new Error(`No handler for operation ${operation.operationId}`);
  // The validator coerced path and query parameters (and the body, in place) to their declared types; an operation
  // without parameters has no parameter validator, hence the routed ones.
  const coerced = validation?.coerced;
  const input = { params: coerced?.params ?? params, query: coerced?.query ?? request.query ?? {}, body: request.body };
  // IDEM-1: a key is per user; a caller without credentials has none (every operation that takes a key refuses it).
  const key = takesIdempotencyKey(operation) ? keyOf(ctx.headers['idempotency-key']) : undefined;
  if (key === undefined || !ctx.principal) return handler(input, ctx);
  const fingerprint = fingerprintOf({
    operationId,
    method: request.method,
    path: request.path,
    query: input.query,
    ifMatch: headerText(ctx.headers['if-match']),
    body: input.body,
  });
  const warn = (error: unknown) => ctx.logger.warn({ err: error }, 'idempotency: the key could not be updated');
  return runIdempotent(ctx.db, ctx.principal.userId, key, fingerprint, () => handler(input, ctx), warn);
}

/** The bundled document with every $ref resolved: what routing and validation work on. */
/**
 * RequestContext.invoke: runs an operation for the caller of the current request as a request to it would run
 * (security requirement, storable input, request validation with coercion, handler), with the body as data.
 */
async function invokeOperation(app: Dispatcher, operationId: OperationId, input: InvokeInput, ctx: RequestContext): Promise<InvokeResult> {
  const operation = app.routes.getOperation(operationId);
  if (!operation) throw new Error(`No operation ${operationId}`);
  if (!isAuthorized(operation, input.as ?? ctx.principal, true)) throw unauthorized();
  await limitRate(app.buckets, invokedClassOf(operationId), 1, ctx);
  const params = input.params ?? {};
  const query = Object.fromEntries(Object.entries(input.query ?? {}).filter(([, value]) => value !== undefined).map(([key, value]) => [key, String(value)]));
  assertStorableInput({ body: input.body, query, params });
  let called: RequestContext = input.headers ? { ...ctx, headers: { ...ctx.headers, ...input.headers } } : ctx;
  if (input.as) {
    // AGENT-10: run as another caller (an approved proposal's proposer), the operations it invokes too.
    const caller: RequestContext = { ...called, principal: input.as, invoke: (id, nested) => invokeOperation(app, id, nested, caller) };
    called = caller;
  }
  const coerced = validateInvocation(app.validator, operation, { params, query, body: input.body }, called.headers as Record<string, string | string[]>);
  const handler = app.handlers[operationId] as OperationHandler;
  let reply: Reply;
  try {
    reply = await handler(coerced, called);
  } catch (error) {
    observeOperation(operationId, error instanceof ApiError ? error.status : 500, null);
    throw error;
  }
  observeOperation(operationId, reply.status, null);
  const body =
    reply.body instanceof PreSerializedJson ? JSON.parse(reply.body.bytes().toString()) : reply.body instanceof TextBody ? reply.body.text : reply.body;
  return { status: reply.status, body, headers: reply.headers ?? {} };
}

export async function createApp(deps: AppDeps): Promise<express.Express> {
  const { db, config, logger, lifecycle } = deps;
  const definition = dereferencedDocument();
  const routes = new RouteTable(definition);
  const dispatcher: Dispatcher = {
    routes,
    buckets: bucketsFor(db),
    cors: corsPolicyOf(config.corsOrigins),
    validator: buildRequestValidator(definition, routes),
    handlers: deps.handlers,
    companion: deps.companion,
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);

  const parseJson = jsonBodyParser(config.bodyLimitBytes);
  const sending: Sending = { lifecycle, drainBytes: config.bodyLimitBytes };
  const parseYaml = yamlBodyParser({ bodyBytes: config.yamlBodyLimitBytes, parseTimeoutMs: config.yamlParseTimeoutMs, expandedBytes: config.bodyLimitBytes });
  /** Reads and parses the request's body (JSON or YAML, its type checked by the front middleware). */
  const bodyReader = (req: Request, res: Response) => (): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const parse = isYamlContentType(req.headers['content-type']) ? parseYaml : parseJson;
      parse(req, res, (error?: unknown) => (error === undefined ? resolve(req.body) : reject(error)));
    });

  // One front middleware (each express layer costs on every request): request id, access log, and the body's type,
  // which must be JSON or YAML (anything else is a 415).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const requestId = (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 128)) || randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    // HTTP-11: no answer is content-sniffed, and none is stored by a cache unless sendReply or its handler says so.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    // CORS-2, CORS-4: set up front, so that every answer has them (errors and preflights too).
    if (dispatcher.cors) for (const [name, value] of Object.entries(answerHeaders(dispatcher.cors, headerText(req.headers.origin)))) res.setHeader(name, value);
    // METRIC-2: every answer counts, by the operation it was routed to (set by dispatch) and its status.
    const track: Tracking = {};
    res.locals.track = track;
    const startedAt = process.hrtime.bigint();
    res.on('finish', () => {
      let operation = track.operationId ?? 'unrouted';
      if (operation === 'importBoard' && req.query.dryRun === 'true') operation = 'planImportBoard';
      observeOperation(operation, res.statusCode, Number(process.hrtime.bigint() - startedAt) / 1e9);
    });
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
    // The body is read once the operation's security check has passed (dispatch): here only its type is checked.
    if (!hasBody(req) || isYamlContentType(req.headers['content-type'])) return next();
    if (!isJsonContentType(req.headers['content-type'])) {
      const type = req.headers['content-type'];
      return next(
        new ApiError(
          'UNSUPPORTED_MEDIA_TYPE',
          type ? `Unsupported content type "${type.split(';')[0]}": send application/json` : 'Missing content type: send application/json',
        ),
      );
    }
    next();
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
        return clientAddressOf(req);
      },
      headers: req.headers,
      lifecycle,
      surface: 'rest',
      invoke: (operationId, input) => invokeOperation(dispatcher, operationId, input, ctx),
    };
    try {
      const reply = await dispatch(
        dispatcher,
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
        hasBody(req) ? bodyReader(req, res) : null,
        res.locals.track,
      );
      const rateHeaders = (res.locals.track as Tracking).rateHeaders;
      if (rateHeaders) for (const [name, value] of Object.entries(rateHeaders)) res.setHeader(name, value);
      res.locals.userId = ctx.principal?.userId;
      if (reply.body instanceof ResponseTakeover) {
        if (lifecycle.shuttingDown) res.setHeader('Connection', 'close');
        await reply.body.write(req, res, req.body);
        return;
      }
      if (config.validateResponses) assertReplyMatchesContract(dispatcher, req, reply, ctx);
      await sendReply(req, res, reply, sending);
    } catch (error) {
      res.locals.userId = ctx.principal?.userId;
      next(error);
    }
  });

  // Every error leaves as {message, code, data}; stack traces and SQL stay in the log.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const reply = toErrorReply(error, logger, res.locals.requestId, req);
    // RATE-4: the RateLimit fields go with the errors of a limited operation too (a 429 sets its own).
    const rateHeaders = (res.locals.track as Tracking | undefined)?.rateHeaders;
    if (rateHeaders && !res.headersSent) for (const [name, value] of Object.entries(rateHeaders)) res.setHeader(name, value);
    const format = deps.errorFormats?.find((candidate) => req.path.startsWith(candidate.prefix));
    const apiError = error instanceof ApiError ? error : new ApiError(reply.status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_SERVER_ERROR', (reply.body as { message: string }).message);
    sendReply(req, res, format ? { ...reply, body: format.body(apiError, req.path) } : reply, sending).catch((sendError) => {
      logger.error({ requestId: res.locals.requestId, err: sendError }, 'error answer not sent');
      res.destroy();
    });
  });

  return app;
}

function toErrorReply(thrown: unknown, logger: Logger, requestId: string, req: Request): Reply {
  const error = asApiError(thrown);
  if (error instanceof ApiError) return errorReply(error);
  if (isDatabaseUnavailable(error)) {
    logger.warn({ requestId, err: error, method: req.method, url: req.originalUrl }, 'database unavailable');
    return errorReply(new ApiError('SERVICE_UNAVAILABLE', 'Database unavailable, retry later'));
  }
  logger.error({ requestId, err: error, method: req.method, url: req.originalUrl }, 'unhandled error');
  return errorReply(new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', { requestId }));
}

/** A reply's body as bytes with its content type, and the compressed forms it keeps, if any (HTTP-7). */
function bodyBytes(reply: Reply, res: Response): { bytes: string | Buffer | readonly Buffer[]; contentType: string; forms?: EncodedForms } {
  const body = reply.body;
  if (body instanceof TextBody) return { bytes: body.text, contentType: body.contentType, forms: body.forms };
  if (body instanceof PreSerializedJson) return { bytes: body.json, contentType: 'application/json; charset=utf-8', forms: body.forms };
  // A handler that set a non-JSON content type sends its string body as is.
  const contentType = res.getHeader('content-type');
  if (typeof body === 'string' && typeof contentType === 'string' && !isJsonContentType(contentType)) return { bytes: body, contentType };
  return { bytes: JSON.stringify(body), contentType: 'application/json; charset=utf-8' };
}

const byteLength = (bytes: string | Buffer | readonly Buffer[]) =>
  typeof bytes === 'string' ? Buffer.byteLength(bytes) : Buffer.isBuffer(bytes) ? bytes.length : bytes.reduce((sum, part) => sum + part.length, 0);

/** Adds `Accept-Encoding` to the response's Vary (HTTP-7), keeping what a handler put there. */
function varyOnAcceptEncoding(res: Response): void {
  const vary = res.getHeader('vary');
  res.setHeader('Vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
}

interface Sending {
  lifecycle: Lifecycle;
  /** The largest body an unread one may be and still be drained (the JSON body limit). */
  drainBytes: number;
}

async function sendReply(req: Request, res: Response, reply: Reply, { lifecycle, drainBytes }: Sending): Promise<void> {
  let cacheControlSet = false;
  let validator = false;
  for (const [name, value] of Object.entries(reply.headers ?? {})) {
    const lower = name.toLowerCase();
    // A handler's Vary adds to what is set already (CORS-2's `Origin`).
    const vary = lower === 'vary' ? res.getHeader('vary') : undefined;
    res.setHeader(name, vary ? `${String(vary)}, ${String(value)}` : value);
    if (lower === 'cache-control') cacheControlSet = true;
    else if (lower === 'etag') validator = true;
  }
  // HTTP-11: an answer to a caller without credentials that carries an ETag (a public board) may be kept by the
  // caller's own cache and revalidated; anything else stays no-store (set up front).
  if (!cacheControlSet && validator && res.locals.userId === undefined) res.setHeader('Cache-Control', 'private, no-cache');
  // While shutting down, no connection is kept alive for another request; nor is one with a large body still arriving
  // unread (an answer given before reading it, INPUT-5), which Node would go on reading to its end.
  if (lifecycle.shuttingDown || leavesLargeBodyUnread(req, drainBytes)) res.setHeader('Connection', 'close');
  res.status(reply.status);
  if (reply.status === 304) varyOnAcceptEncoding(res);
  if (reply.body === undefined || reply.status === 204 || reply.status === 304) {
    res.end();
    return;
  }
  const { bytes, contentType, forms } = bodyBytes(reply, res);
  res.setHeader('Content-Type', contentType);
  varyOnAcceptEncoding(res);
  const length = byteLength(bytes);
  const coding = length >= compressionThreshold ? negotiateCoding(req.headers['accept-encoding']) : null;
  if (coding) {
    const compressed = await (forms ? forms.get(coding) : compress(typeof bytes === 'string' ? Buffer.from(bytes) : bytes, coding));
    res.setHeader('Content-Encoding', coding);
    res.setHeader('Content-Length', compressed.length);
    res.end(compressed);
    return;
  }
  res.setHeader('Content-Length', length);
  if (typeof bytes === 'string' || Buffer.isBuffer(bytes)) {
    res.end(bytes);
    return;
  }
  // Parts: one writev of all of them (corked), without joining them into one buffer first.
  res.cork();
  for (const part of bytes) res.write(part);
  res.end();
}

/** Test-mode contract check: a reply that breaks the OpenAPI document becomes a 500 and a log line. */
function assertReplyMatchesContract(app: Dispatcher, req: Request, reply: Reply, ctx: RequestContext): void {
  const match = app.routes.route(req.method === 'HEAD' ? 'GET' : req.method, req.path);
  if (!match.found) return;
  const { operation } = match;
  const declared = operation.responses?.[String(reply.status)];
  if (!declared) throw new Error(`Contract violation: ${operation.operationId} returned undeclared status ${reply.status}`);
  const sentHeaders = new Set(Object.keys(reply.headers ?? {}).map((name) => name.toLowerCase()));
  for (const [name, header] of Object.entries((declared as { headers?: Record<string, { required?: boolean }> }).headers ?? {})) {
    if (header.required && !sentHeaders.has(name.toLowerCase())) {
      throw new Error(`Contract violation: ${operation.operationId} ${reply.status} lacks the required header ${name}`);
    }
  }
  if (reply.body === undefined) return;
  const body =
    reply.body instanceof PreSerializedJson
      ? JSON.parse(reply.body.bytes().toString())
      : reply.body instanceof TextBody
        ? isYamlContentType(reply.body.contentType)
          ? parseYamlBody(reply.body.text)
          : reply.body.text
        : reply.body;
  const result = app.validator.validateResponse(body, operation, reply.status);
  if (result.errors && result.errors.length > 0) {
    ctx.logger.error({ operationId: operation.operationId, errors: result.errors }, 'response violates the contract');
    throw new Error(`Contract violation: ${operation.operationId} ${reply.status}: ${JSON.stringify(result.errors).slice(0, 500)}`);
  }
}
