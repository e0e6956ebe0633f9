/**
 * The route table of the API: every operation of the (dereferenced) OpenAPI document, with its path template compiled
 * once. It answers which operation a request is for, with the path parameters decoded, or 404, or 405 with the
 * methods the path allows (HTTP-5); and it is the router openapi-backend's validator is built on (its `router`
 * option), so routing and validation agree by construction. Requests are parsed here without openapi-backend's
 * per-request cloning and template compiling; the unusual ones (cookies, query parameters with special encodings)
 * go to its own parser.
 */
import { OpenAPIRouter } from 'openapi-backend';
import type { Document, Operation, ParsedRequest, Request as BackendRequest } from 'openapi-backend';
import { ApiError } from '../core/errors';

interface Route {
  operation: Operation;
  pattern: RegExp;
  names: string[];
  /** Length of the literal part of the template: more literal text is a more specific route. */
  specificity: number;
}

export type RouteMatch =
  /** `rawParams`: the path parameters as they appear in the path (decodeParams decodes them). */
  | { found: true; operation: Operation; rawParams: Record<string, string> }
  | { found: false; status: 404 }
  | { found: false; status: 405; allow: string[] };

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

function compile(template: string): { pattern: RegExp; names: string[] } {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const escaped = template
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('([^/]+)');
  return { pattern: new RegExp(`^${escaped}$`), names };
}

const malformedPathParameter = (name?: string) =>
  new ApiError('BAD_REQUEST', name ? `Malformed percent-encoding in path parameter "${name}"` : 'Malformed percent-encoding in path');

/** A request path without trailing slashes (but `/`), as openapi-backend matches them. */
function normalize(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
  return end === path.length ? path : path.slice(0, end);
}

export class RouteTable extends OpenAPIRouter {
  private readonly operations: Operation[];
  /** Routes most specific first: a literal path wins over a template that also matches it. */
  private readonly routes: Route[];
  private readonly byOperationId = new Map<string, Route>();
  private readonly plainQuery = new Set<string>();

  constructor(definition: Document) {
    super({ definition });
    this.operations = Object.entries(definition.paths ?? {}).flatMap(([path, item]) =>
      methods.flatMap((method) => {
        const operation = (item as Record<string, any>)?.[method];
        if (!operation) return [];
        return [
          {
            ...operation,
            path,
            method,
            parameters: [...(operation.parameters ?? []), ...((item as any).parameters ?? [])],
            security: operation.security ?? definition.security ?? [],
          } as Operation,
        ];
      }),
    );
    this.routes = this.operations
      .map((operation) => ({ operation, ...compile(operation.path), specificity: operation.path.replace(/\{[^}]+\}/g, '').length }))
      .sort((a, b) => b.specificity - a.specificity);
    for (const route of this.routes) {
      this.byOperationId.set(route.operation.operationId!, route);
      const special = (route.operation.parameters ?? []).some(
        (parameter: any) => parameter.in === 'query' && (parameter.explode === false || parameter.content !== undefined),
      );
      if (!special) this.plainQuery.add(route.operation.operationId!);
    }
  }

  override getOperations(): Operation[] {
    return this.operations;
  }

  override getOperation(operationId: string): Operation | undefined {
    return this.byOperationId.get(operationId)?.operation;
  }

  /** The route of a request: the operation with its decoded path parameters, else 404, or 405 with what is allowed. */
  route(method: string, rawPath: string): RouteMatch {
    const path = normalize(rawPath);
    const wanted = method.toLowerCase();
    let pathMatched: Route[] | undefined;
    for (const route of this.routes) {
      const match = route.pattern.exec(path);
      if (!match) continue;
      // Routes are most specific first: the first template that matches is the path's route; others of the same
      // template (other methods) follow it at the same specificity.
      if (pathMatched && pathMatched[0].operation.path !== route.operation.path) break;
      (pathMatched ??= []).push(route);
      if (route.operation.method === wanted) return { found: true, operation: route.operation, rawParams: this.raw(route, match) };
    }
    if (!pathMatched) return { found: false, status: 404 };
    return { found: false, status: 405, allow: this.allowed(pathMatched) };
  }

  /** The methods a path allows (upper case, HEAD with GET, and OPTIONS); empty for a path with no route. */
  allowedMethods(rawPath: string): string[] {
    const path = normalize(rawPath);
    const first = this.routes.find((route) => route.pattern.test(path));
    if (!first) return [];
    return this.allowed(this.routes.filter((route) => route.operation.path === first.operation.path));
  }

  private allowed(routes: Route[]): string[] {
    const names = new Set(routes.map((route) => route.operation.method.toUpperCase()));
    if (names.has('GET')) names.add('HEAD');
    names.add('OPTIONS');
    return [...names];
  }

  private raw(route: Route, match: RegExpExecArray): Record<string, string> {
    const params: Record<string, string> = {};
    route.names.forEach((name, i) => (params[name] = match[i + 1]));
    return params;
  }

  /** Path parameters percent-decoded; 400 naming the parameter when its encoding is broken. */
  decodeParams(rawParams: Record<string, string>): Record<string, string> {
    let params = rawParams;
    for (const name in rawParams) {
      const raw = rawParams[name];
      if (!raw.includes('%')) continue;
      if (params === rawParams) params = { ...rawParams };
      try {
        params[name] = decodeURIComponent(raw);
      } catch {
        throw malformedPathParameter(name);
      }
    }
    return params;
  }

  /**
   * Parses a request for validation. The usual request (a JSON or no body, the query as an object, no cookies, no
   * query parameter with a special encoding) is parsed with the route compiled once; any other goes to
   * openapi-backend's parser. Same shape and values either way.
   */
  override parseRequest(req: BackendRequest, operation?: Operation): ParsedRequest {
    const route = operation?.operationId ? this.byOperationId.get(operation.operationId) : undefined;
    const usual =
      route !== undefined &&
      typeof req.query === 'object' &&
      req.headers.cookie === undefined &&
      (req.body === undefined || typeof req.body === 'object') &&
      this.plainQuery.has(route.operation.operationId!);
    if (!usual) {
      try {
        return super.parseRequest(req, operation);
      } catch (error) {
        if (error instanceof URIError) throw malformedPathParameter();
        throw error;
      }
    }
    const path = normalize(req.path.split('?')[0]);
    const match = route.pattern.exec(path);
    const headers: Record<string, string | string[]> = {};
    for (const name in req.headers) headers[name.toLowerCase()] = req.headers[name];
    const query: Record<string, string | string[]> = {};
    const rawQuery = req.query as Record<string, string | string[]>;
    for (const name in rawQuery) query[name] = Array.isArray(rawQuery[name]) ? [...rawQuery[name]] : rawQuery[name];
    // A literal, not a spread of the request: V8 gives spread-and-extend results a hidden class of their own.
    const parsed: ParsedRequest & { body: unknown } = {
      method: req.method.toLowerCase(),
      path,
      body: req.body,
      params: match ? this.decodeParams(this.raw(route, match)) : {},
      headers,
      query,
      cookies: {},
      requestBody: req.body,
    };
    return parsed;
  }
}
