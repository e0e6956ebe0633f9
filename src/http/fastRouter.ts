import type OpenAPIBackend from 'openapi-backend';

/**
 * openapi-backend's router flattens the whole document into its operation list, and turns every path template
 * into a fresh RegExp, on every request. The document never changes after init, so this computes both once and
 * matches the same way: an exact path first, then templates by specificity (longest literal part), then method.
 * Anything unmatched goes to the original router, so 404/405 behave exactly as before.
 */
export function precompileRouting(api: OpenAPIBackend): void {
  const router = api.router;
  const operations = router.getOperations();
  router.getOperations = () => operations;
  const routes = operations
    .map((operation) => ({
      operation,
      pattern: templatePattern(operation.path),
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
}

function templatePattern(template: string): RegExp {
  const escaped = template
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${escaped}$`);
}
