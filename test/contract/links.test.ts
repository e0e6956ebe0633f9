/**
 * The OpenAPI `links` (CONTRACT-1) that schemathesis' stateful phase follows from a created resource to the operations
 * that use it: each names an operation of the document, sets only parameters that operation declares, and takes
 * values from places that exist (a property of the response schema, down a JSON pointer, a response header, a path
 * parameter or a property of the request body of the linking operation). Every operation is reached by a chain of
 * links (CONTRACT-21). Then chains are followed over HTTP the way schemathesis does.
 */
import { dereferencedDocument } from '../../src/core/openapiDocument';
import { listOperations } from '../fuzz/openapi';
import { useTestServer } from '../support/server';
import { expectOk } from '../boards-document/helpers';

const document = dereferencedDocument() as any;
const operations = listOperations(document);
const byId = new Map(operations.map((op) => [op.operationId, op]));

interface Link {
  from: string;
  status: string;
  name: string;
  operationId: string;
  parameters: Record<string, string>;
  requestBody?: unknown;
}

const links: Link[] = operations.flatMap((op) =>
  Object.entries(document.paths[op.path][op.method].responses as Record<string, any>).flatMap(([status, response]) =>
    Object.entries((response.links ?? {}) as Record<string, { operationId: string; parameters?: Record<string, string>; requestBody?: unknown }>).map(
      ([name, link]) => ({
        from: op.operationId,
        status,
        name,
        operationId: link.operationId,
        parameters: link.parameters ?? {},
        requestBody: link.requestBody,
      }),
    ),
  ),
);

/** The schema of a JSON body's property, through allOf/oneOf. */
function hasProperty(schema: any, property: string): boolean {
  return propertySchemas(schema, property).length > 0;
}

/**
 * The schemas `property` has in `schema` (through allOf/oneOf/anyOf), the items' schema for an array index, or any
 * value in a free-form object (one declaring no properties, or declaring that others are allowed: an MCP tool's
 * `structuredContent`, a tRPC envelope).
 */
function propertySchemas(schema: any, property: string): any[] {
  if (!schema || typeof schema !== 'object') return [];
  const own = /^\d+$/.test(property) && schema.items ? [schema.items] : schema.properties && property in schema.properties ? [schema.properties[property]] : [];
  const nested = [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].flatMap((s: any) => propertySchemas(s, property));
  const open =
    own.length === 0 && nested.length === 0 && (schema.type === 'object' || (schema.type === undefined && !schema.items)) && (schema.additionalProperties === true || (!schema.properties && schema.additionalProperties === undefined))
      ? [{}]
      : [];
  return [...own, ...nested, ...open];
}

/** Whether the JSON pointer `pointer` (`a/0/b`) names a place `schema` declares. */
function hasPointer(schema: any, pointer: string): boolean {
  let schemas = [schema];
  for (const token of pointer.split('/')) schemas = schemas.flatMap((s) => propertySchemas(s, token));
  return schemas.length > 0;
}

const methods = ['get', 'put', 'post', 'delete', 'patch'];

/** Where the value a link's expression names is, or why not (CONTRACT-1): null when it exists. */
function expressionProblem(expression: unknown, source: (typeof operations)[number], status: string): string | null {
  if (typeof expression !== 'string' || !expression.startsWith('$')) return null; // a constant
  const response = document.paths[source.path][source.method].responses[status];
  const responseBody = /^\$response\.body#\/(.+)$/.exec(expression);
  const responseHeader = /^\$response\.header\.([\w-]+)$/.exec(expression);
  const body = /^\$request\.body#\/(.+)$/.exec(expression);
  const path = /^\$request\.path\.(\w+)$/.exec(expression);
  // The whole body (an exported board file imported again).
  if (expression === '$response.body') return response.content?.['application/json']?.schema ? null : 'the response has no JSON body';
  if (responseBody) return hasPointer(response.content?.['application/json']?.schema, responseBody[1]) ? null : `the response has no ${responseBody[1]}`;
  if (responseHeader) return responseHeader[1] in (response.headers ?? {}) ? null : `the response has no header ${responseHeader[1]}`;
  if (body) return hasPointer(source.body?.schema, body[1]) ? null : `the request body has no ${body[1]}`;
  if (path) return source.parameters.some((p) => p.in === 'path' && p.name === path[1]) ? null : `no path parameter ${path[1]}`;
  return `unsupported expression ${expression}`;
}

/** The runtime expressions of a link's request body, at any depth. */
const bodyExpressions = (value: unknown): unknown[] =>
  value && typeof value === 'object' ? Object.values(value).flatMap(bodyExpressions) : [value];

describe('CONTRACT-1: OpenAPI links', () => {
  it('the flows that create a resource link to the operations that use it', () => {
    const from = (id: string) => links.filter((l) => l.from === id).map((l) => l.operationId).sort();
    expect(from('createBoard')).toEqual(
      expect.arrayContaining(['getBoard', 'saveBoard', 'saveBoardLayouts', 'deleteBoard', 'duplicateBoard', 'getBoardHistory', 'exportBoard']),
    );
    expect(from('addBoardItem')).toEqual(expect.arrayContaining(['updateBoardItem', 'deleteBoardItem']));
    expect(from('addBoardSection')).toEqual(expect.arrayContaining(['updateBoardSection', 'deleteBoardSection']));
    expect(from('createApp')).toEqual(expect.arrayContaining(['getApp', 'updateApp', 'deleteApp']));
    expect(from('createUser')).toEqual(expect.arrayContaining(['deleteUser', 'setUserPassword', 'createApiKey', 'login']));
    expect(from('createGroup')).toEqual(expect.arrayContaining(['deleteGroup', 'getGroup', 'addGroupMember']));
    expect(from('createApiKey')).toEqual(expect.arrayContaining(['deleteApiKey', 'listApiKeys']));
    expect(from('createCustomApi')).toEqual(expect.arrayContaining(['getCustomApi', 'replaceCustomApi', 'deleteCustomApi']));
    expect(from('getBoardHistory')).toEqual(expect.arrayContaining(['getBoardRevision', 'restoreBoard']));
    expect(from('createIntegration')).toEqual(expect.arrayContaining(['getIntegration', 'deleteIntegration']));
    expect(from('importBoard')).toEqual(expect.arrayContaining(['getBoard', 'exportBoard', 'deleteBoard']));
    // The board files: schemathesis starts no chain with them (its dependency analysis finds inputs in their bodies
    // that no operation produces), so an exported file is imported again and applied as a set.
    expect(from('exportBoard')).toEqual(expect.arrayContaining(['importBoard', 'applyBoardSet']));
  });

  it('every link names an operation, sets only its parameters, all of its path parameters, from values that exist', () => {
    const problems: string[] = [];
    for (const link of links) {
      const where = `${link.from} ${link.status} ${link.name}`;
      const target = byId.get(link.operationId);
      if (!target) {
        problems.push(`${where}: no operation ${link.operationId}`);
        continue;
      }
      const source = byId.get(link.from)!;
      // A name is the parameter's, or `<in>.<name>` (`header.If-Match`) as OpenAPI allows where names repeat.
      const named = (name: string) => {
        const qualified = /^(path|query|header|cookie)\.(.+)$/.exec(name);
        return qualified ? { in: qualified[1], name: qualified[2] } : { in: undefined, name };
      };
      for (const p of target.parameters.filter((p) => p.in === 'path')) {
        if (!Object.keys(link.parameters).some((name) => named(name).name === p.name)) problems.push(`${where}: path parameter ${p.name} not set`);
      }
      for (const [name, expression] of Object.entries(link.parameters)) {
        const wanted = named(name);
        if (!target.parameters.some((p) => p.name === wanted.name && (!wanted.in || p.in === wanted.in))) {
          problems.push(`${where}: ${link.operationId} has no parameter ${name}`);
        }
        const problem = expressionProblem(expression, source, link.status);
        if (problem) problems.push(`${where}: ${problem}`);
      }
      if (link.requestBody !== undefined) {
        if (!target.body) problems.push(`${where}: ${link.operationId} takes no body`);
        const bodyKeys = link.requestBody && typeof link.requestBody === 'object' ? Object.keys(link.requestBody) : [];
        for (const key of bodyKeys) {
          if (target.body && !hasProperty(target.body.schema, key)) problems.push(`${where}: ${link.operationId}'s body has no ${key}`);
        }
        for (const expression of bodyExpressions(link.requestBody)) {
          const problem = expressionProblem(expression, source, link.status);
          if (problem) problems.push(`${where}: ${problem}`);
        }
      }
    }
    expect(links.length).toBeGreaterThan(120);
    expect(problems).toEqual([]);
  });

  it('CONTRACT-21: every operation is reached by a chain of links from an operation a chain can start with', () => {
    // schemathesis starts a chain with an operation that has links of its own and is a POST or a GET without path
    // parameters (a create or a list); a chain then follows links only.
    const path = (id: string) => byId.get(id)!.path;
    const method = (id: string) => byId.get(id)!.method;
    const starts = [...new Set(links.map((l) => l.from))].filter((id) => method(id) === 'post' || (method(id) === 'get' && !path(id).includes('{')));
    const reached = new Set(starts);
    const queue = [...starts];
    while (queue.length > 0) {
      const from = queue.shift()!;
      for (const link of links.filter((l) => l.from === from)) {
        if (!reached.has(link.operationId)) {
          reached.add(link.operationId);
          queue.push(link.operationId);
        }
      }
    }
    const all = operations.filter((op) => methods.includes(op.method)).map((op) => op.operationId);
    expect(all.filter((id) => !reached.has(id))).toEqual([]);
    expect(all.length).toBeGreaterThan(100);
  });
});

describe('CONTRACT-1: following the links over HTTP', () => {
  const server = useTestServer();

  it('create a board, add a section and an item, then use them through the values the links name', async () => {
    const created = await server.call('POST', '/api/boards', { body: { name: `links-${Date.now()}`, columnCount: 12, isPublic: false } });
    expect(created.status).toBe(201);
    const boardId = created.body.boardId; // createBoard -> GetBoard: $response.body#/boardId
    const board = expectOk(await server.call('GET', `/api/boards/${boardId}`));
    const section = { id: `links-section-${Date.now()}`, kind: 'empty', yOffset: 5, xOffset: 0 };
    expect((await server.call('POST', `/api/boards/${boardId}/sections`, { body: section })).status).toBe(201);
    // addBoardSection -> DeleteBoardSection: $request.path.id, $request.body#/id
    expect((await server.call('DELETE', `/api/boards/${boardId}/sections/${section.id}`)).status).toBe(200);
    const item = await server.call('POST', '/api/boards/items', { body: { boardId, kind: 'clock' } });
    expect(item.status).toBe(201);
    // addBoardItem -> UpdateBoardItem: $request.body#/boardId, $response.body#/itemId
    expect((await server.call('PATCH', `/api/boards/${boardId}/items/${item.body.itemId}`, { body: { options: {} } })).status).toBe(200);
    expect((await server.call('DELETE', `/api/boards/${boardId}/items/${item.body.itemId}`)).status).toBe(200);
    expect(board.layouts).toHaveLength(1);
    expect((await server.call('DELETE', `/api/boards/${boardId}`)).status).toBe(204);
  });

  it('CONTRACT-21: an exported file is imported again as a copy, and applied as a set of one board', async () => {
    const name = `links-export-${Date.now()}`;
    const created = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false } }), 201);
    const file = expectOk(await server.call('GET', `/api/boards/${created.boardId}/export`));
    // exportBoard -> ImportBoardCopy: query.onConflict rename, the body $response.body
    const copy = expectOk(await server.call('POST', '/api/boards/import?onConflict=rename', { body: file }), 201);
    expect(copy.name).toBe(`${name}-2`);
    // exportBoard -> ApplyBoardSet: {managedBy, boards: [$response.body]}
    const applied = expectOk(await server.call('POST', '/api/boards/apply', { body: { managedBy: 'links.example/exported', boards: [file] } }));
    expect(applied.boards).toEqual([expect.objectContaining({ name, boardId: created.boardId })]);
  });

  it('CONTRACT-21: a read hands its ETag and first item to the change, a history its newest revision to the restore', async () => {
    const created = await server.call('POST', '/api/boards', { body: { name: `links-etag-${Date.now()}`, columnCount: 12, isPublic: false } });
    const boardId = created.body.boardId;
    expect((await server.call('POST', '/api/boards/items', { body: { boardId, kind: 'clock' } })).status).toBe(201);
    // getBoard -> UpdateBoardItem: $response.body#/id, $response.body#/items/0/id, header.If-Match: $response.header.ETag
    const read = await server.call('GET', `/api/boards/${boardId}`);
    expect(read.status).toBe(200);
    const changed = await server.call('PATCH', `/api/boards/${read.body.id}/items/${read.body.items[0].id}`, {
      body: { options: {} },
      headers: { 'If-Match': read.headers.get('ETag')! },
    });
    expect(changed.status).toBe(200);
    // BoardDocumentResponse -> GetBoardHistory: $response.body#/id; getBoardHistory -> RestoreBoard: $response.body#/entries/0/revision
    const history = await server.call('GET', `/api/boards/${changed.body.id}/history`);
    expect(history.status).toBe(200);
    const restored = await server.call('POST', `/api/boards/${boardId}/restore`, { body: { revision: history.body.entries[0].revision } });
    expect(restored.status).toBe(200);
    expect((await server.call('DELETE', `/api/boards/${boardId}`)).status).toBe(204);
  });

  it('CONTRACT-21: a created user signs in with the name and password it was created with', async () => {
    const body = { username: `links-user-${Date.now()}`, password: 'links-password-1' };
    const created = await server.call('POST', '/api/users', { body });
    expect(created.status).toBe(201);
    // createUser -> Login: requestBody {username: $request.body#/username, password: $request.body#/password}
    const login = await server.call('POST', '/api/auth/login', { body, key: undefined });
    expect(login.status).toBe(200);
    expect(login.body.userId).toBe(created.body.userId);
    // createUser -> DeleteUser: $response.body#/userId
    expect((await server.call('DELETE', `/api/users/${created.body.userId}`)).status).toBe(204);
  });
});
