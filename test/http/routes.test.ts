/**
 * The route table (src/http/routes.ts) on its own: every operation of the OpenAPI document routes to itself and has a
 * handler, so the one routing implementation and the handler table cannot drift from the document (issue 14, item 6).
 */
import { dereferencedDocument } from '../../src/core/openapiDocument';
import { RouteTable } from '../../src/http/routes';
import { createHandlers } from '../../src/handlers';
import { BoardDocumentCache } from '../../src/boards/document/cache';
import { BoardStateCache } from '../../src/boards/document/stateCache';

const definition = dereferencedDocument();
const routes = new RouteTable(definition);
const operations = routes.getOperations();

describe('route table', () => {
  it('holds every operation of the document', () => {
    const inDocument = Object.values(definition.paths ?? {}).flatMap((item) =>
      ['get', 'put', 'post', 'delete', 'patch'].flatMap((method) => ((item as any)?.[method] ? [(item as any)[method].operationId] : [])),
    );
    expect(operations.map((operation) => operation.operationId).sort()).toEqual(inDocument.sort());
  });

  it.each(operations.map((operation) => [operation.operationId!, operation.method, operation.path] as const))(
    '%s: %s %s routes to its operation, with its path parameters decoded',
    (operationId, method, template) => {
      const path = template.replace(/\{([^}]+)\}/g, (_all, name: string) => `v%20${name}`);
      const match = routes.route(method.toUpperCase(), path);
      expect(match.found && match.operation.operationId).toBe(operationId);
      if (!match.found) return;
      const params = routes.decodeParams(match.rawParams);
      for (const name of [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])) expect(params[name]).toBe(`v ${name}`);
    },
  );

  it('every operation has a handler, and every handler an operation', () => {
    const handlers = createHandlers({ boardDocuments: new BoardDocumentCache(0), boardStates: new BoardStateCache(0), boardEvents: {} as never, secrets: {} as never, widgetData: {} as never });
    expect(Object.keys(handlers).sort()).toEqual(operations.map((operation) => operation.operationId!).sort());
    for (const operation of operations) expect(typeof (handlers as Record<string, unknown>)[operation.operationId!]).toBe('function');
  });

  it('HTTP-5: a known path with another method is a 405 listing the methods it allows; an unknown path is a 404', () => {
    expect(routes.route('DELETE', '/api/boards/items')).toEqual({ found: false, status: 405, allow: ['POST', 'OPTIONS'] });
    expect(routes.route('GET', '/api/nothing-here')).toEqual({ found: false, status: 404 });
  });

  it('a literal path wins over a template that also matches it', () => {
    const match = routes.route('GET', '/api/apps/selectable');
    expect(match.found && match.operation.operationId).toBe('listSelectableApps');
  });
});
