import type OpenAPIBackend from 'openapi-backend';
import type { Operation, ParsedRequest, Request as BackendRequest } from 'openapi-backend';
import { ApiError } from '../core/errors';

interface CompiledPath {
  pattern: RegExp;
  names: string[];
}

/**
 * openapi-backend's router flattens the whole document into its operation list, and turns every path template
 * into a fresh RegExp, on every request; its request parser (run four times per request) compiles the matched
 * template again each time and deep-clones headers and query. The document never changes after init, so this
 * computes the routes and the path templates once and matches the same way: an exact path first, then templates by
 * specificity (longest literal part), then method. Anything unmatched goes to the original router, so 404/405
 * behave exactly as before.
 */
export function precompileRouting(api: OpenAPIBackend): void {
  const router = api.router;
  const operations = router.getOperations();
  router.getOperations = () => operations;
  const paths = new Map(operations.map((operation) => [operation.path, compilePath(operation.path)]));
  const routes = operations
    .map((operation) => ({
      operation,
      pattern: paths.get(operation.path)!.pattern,
      specificity: operation.path.replace(/\{.*?\}/g, '').length,
    }))
    .sort((a, b) => b.specificity - a.specificity);
  const original = router.matchOperation.bind(router);
  router.matchOperation = ((req: Parameters<typeof original>[0], strict?: boolean) => {
    const normalized = router.normalizeRequest(req);
    if ((router as unknown as { isUnderApiRoot(path: string): boolean }).isUnderApiRoot(normalized.path)) {
      const path = router.normalizePath(normalized.path);
      const exact = routes.find((route) => route.operation.path === path && route.operation.method === normalized.method);
      if (exact) return exact.operation;
      const template = routes.find((route) => route.operation.method === normalized.method && route.pattern.test(path));
      if (template && !routes.some((route) => route.operation.path === path)) return template.operation;
    }
    return original(req, strict as true);
  }) as typeof router.matchOperation;

  precompileRequestParsing(api, paths);
}

/**
 * The common request (parsed JSON or no body, query as an object, no cookies, no query parameter with special
 * decoding) is parsed here with templates compiled once; any other goes to openapi-backend's own parser. The
 * result has the same shape and values.
 */
function precompileRequestParsing(api: OpenAPIBackend, paths: ReadonlyMap<string, CompiledPath>): void {
  const router = api.router;
  const original = router.parseRequest.bind(router);
  const plainQuery = new Map(router.getOperations().map((operation) => [operation.operationId ?? '', !hasSpecialQueryParameters(operation)]));

  router.parseRequest = ((req: BackendRequest, operation?: Operation) => {
    const compiled = operation ? paths.get(operation.path) : undefined;
    const usual =
      typeof req.query === 'object' &&
      req.headers.cookie === undefined &&
      (req.body === undefined || typeof req.body === 'object') &&
      (!operation || (compiled !== undefined && plainQuery.get(operation.operationId ?? '') === true));
    if (!usual) {
      try {
        return original(req, operation);
      } catch (error) {
        if (error instanceof URIError) throw malformedPathParameter();
        throw error;
      }
    }

    const normalized = router.normalizeRequest(req);
    const headers: Record<string, string | string[]> = {};
    for (const name in req.headers) headers[name.toLowerCase()] = req.headers[name];
    const query: Record<string, string | string[]> = {};
    const rawQuery = req.query as Record<string, string | string[]>;
    for (const name in rawQuery) query[name] = Array.isArray(rawQuery[name]) ? [...rawQuery[name]] : rawQuery[name];
    const params = compiled ? (pathParameters(compiled, router.normalizePath(normalized.path)) ?? {}) : {};
    // A literal, not a spread of `normalized`: V8 gives spread-and-extend results a hidden class of their own.
    const parsed: ParsedRequest & { body: unknown } = {
      method: normalized.method,
      path: normalized.path,
      body: req.body,
      params,
      headers,
      query,
      cookies: {},
      requestBody: req.body,
    };
    return parsed;
  }) as typeof router.parseRequest;
}

function hasSpecialQueryParameters(operation: Operation): boolean {
  return (operation.parameters ?? []).some(
    (parameter) => !('$ref' in parameter) && parameter.in === 'query' && (parameter.explode === false || parameter.content !== undefined),
  );
}

function compilePath(template: string): CompiledPath {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const escaped = template
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('([^/]+)');
  return { pattern: new RegExp(`^${escaped}$`), names };
}

/** The decoded path parameters; null when the path does not fit the template. 400 on broken percent-encoding. */
function pathParameters(compiled: CompiledPath, path: string): Record<string, string> | null {
  const match = compiled.pattern.exec(path);
  if (!match) return null;
  const params: Record<string, string> = {};
  compiled.names.forEach((name, i) => {
    try {
      params[name] = decodeURIComponent(match[i + 1]);
    } catch {
      throw malformedPathParameter(name);
    }
  });
  return params;
}

const malformedPathParameter = (name?: string) =>
  new ApiError('BAD_REQUEST', name ? `Malformed percent-encoding in path parameter "${name}"` : 'Malformed percent-encoding in path');
