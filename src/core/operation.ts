import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { operations } from '../../generated/api';
import type { Config } from '../config/config';
import type { Db } from '../db/database';
import type { Principal } from '../identity/principal';
import type { EncodedForms } from './contentCoding';

/** Every operationId of the OpenAPI document. */
export type OperationId = keyof operations;

type JsonContent<T> = T extends { content: { 'application/json': infer Body } }
  ? Body
  : T extends { content: { 'text/html': infer Html } }
    ? Html
    : T extends { content: { 'text/javascript': infer Text } }
      ? Text
      : T extends { content: { 'text/css': infer Css } }
        ? Css
        : T extends { content: { 'application/manifest+json': infer Manifest } }
          ? Manifest
          : undefined;

export type RequestBody<K extends OperationId> = operations[K] extends { requestBody?: infer R }
  ? JsonContent<NonNullable<R>> | (undefined extends R ? undefined : never)
  : undefined;

type ParametersOf<K extends OperationId> = operations[K]['parameters'];
export type PathParams<K extends OperationId> = NonNullable<ParametersOf<K>['path']>;
export type QueryParams<K extends OperationId> = NonNullable<ParametersOf<K>['query']>;

type Responses<K extends OperationId> = operations[K]['responses'];
type DeclaredStatus<K extends OperationId> = Extract<keyof Responses<K>, number>;

/**
 * A JSON body already serialized (for example a cached board document): sent as is, without re-encoding. Large
 * documents come as a list of byte parts (written to the socket together, never joined into one buffer). The
 * phantom type keeps it tied to the schema of the response it stands for.
 */
export class PreSerializedJson<T = unknown> {
  declare readonly _type: T;
  constructor(
    readonly json: string | Buffer | readonly Buffer[],
    /** Compressed forms kept with the body (a cached document's), so each coding is paid once (HTTP-7). */
    readonly forms?: EncodedForms,
  ) {}

  /** The body as one buffer (for checks; sending does not need it). */
  bytes(): Buffer {
    return typeof this.json === 'string' ? Buffer.from(this.json) : Buffer.isBuffer(this.json) ? this.json : Buffer.concat(this.json as Buffer[]);
  }
}

/**
 * A body in another representation the response declares (a board file as YAML): sent as is with its content type.
 * The phantom type keeps it tied to the schema of the JSON representation.
 */
export class TextBody<T = unknown> {
  declare readonly _type: T;
  constructor(
    readonly text: string,
    readonly contentType: string,
    /** Compressed forms kept with the body (a static page's), so each coding is paid once (HTTP-7). */
    readonly forms?: EncodedForms,
  ) {}
}

/** What a handler returns: one of the operation's declared responses, typed from generated/. Errors are thrown as ApiError. */
export type Reply<K extends OperationId> = {
  [S in DeclaredStatus<K>]: {
    status: S;
    body: JsonContent<Responses<K>[S]> | PreSerializedJson<JsonContent<Responses<K>[S]>> | TextBody<JsonContent<Responses<K>[S]>> | ResponseTakeover;
    headers?: Record<string, string | string[]>;
  };
}[DeclaredStatus<K>];

export interface RequestContext {
  db: Db;
  config: Config;
  logger: Logger;
  requestId: string;
  /** The authenticated caller, or null for anonymous requests on public operations. */
  principal: Principal | null;
  clientIp: string;
  headers: IncomingHttpHeaders;
  lifecycle: Lifecycle;
  /** The surface the request came through (AUDIT-2): the REST API, tRPC, MCP or the board page. */
  surface: Surface;
  /**
   * Runs an operation of this API for the same caller exactly as a request to it would run (its security
   * requirement, request validation, its handler): how the tRPC and MCP surfaces reach the services, so every rule
   * has one implementation. Errors are thrown as ApiError.
   */
  invoke(operationId: OperationId, input: InvokeInput): Promise<InvokeResult>;
}

/** Where a request or command came from (AUDIT-2). */
export type Surface = 'rest' | 'trpc' | 'mcp' | 'page' | 'cli';

export interface InvokeInput {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  /** Request headers set for this invocation only (AGENT-5: an applied proposal's If-Match), over the request's own. */
  headers?: Record<string, string>;
  /** Runs as this caller instead of the request's (AGENT-10: an approved proposal runs as the key that proposed it). */
  as?: Principal;
}

/** An invoked operation's answer: its status, its body as data (undefined when it has none), its headers. */
export interface InvokeResult {
  status: number;
  body: unknown;
  headers: Record<string, string | string[]>;
}

/**
 * A response written by a handler's own code (the MCP transport writes its answer itself): `write` gets Node's
 * request and response once the request has passed routing, authentication and validation.
 */
export class ResponseTakeover {
  constructor(readonly write: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, body: unknown) => Promise<void>) {}
}

/** Process state the probes report: ready after migrations, shuttingDown after SIGTERM. */
export interface Lifecycle {
  ready: boolean;
  shuttingDown: boolean;
}

export interface OperationInput<K extends OperationId> {
  params: PathParams<K>;
  query: QueryParams<K>;
  body: RequestBody<K>;
}

export type Handler<K extends OperationId> = (input: OperationInput<K>, ctx: RequestContext) => Promise<Reply<K>>;

export type HandlerMap = { [K in OperationId]: Handler<K> };

/** A request header as one string; a repeated list-valued header (If-Match, If-None-Match) as one joined list. */
export function headerList(ctx: RequestContext, name: string): string | undefined {
  const value = ctx.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function requirePrincipal(ctx: RequestContext): Principal {
  if (!ctx.principal) throw new Error('operation declared authenticated but has no principal');
  return ctx.principal;
}
