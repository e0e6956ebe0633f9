/**
 * The OpenAPI `links` (CONTRACT-1) that schemathesis' stateful phase follows from a created resource to the operations
 * that use it: each names an operation of the document, sets only parameters that operation declares, and takes
 * values from places that exist (a property of the response schema, a path parameter or a property of the request
 * body of the linking operation). Then one chain is followed over HTTP the way schemathesis does.
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
}

const links: Link[] = operations.flatMap((op) =>
  Object.entries(document.paths[op.path][op.method].responses as Record<string, any>).flatMap(([status, response]) =>
    Object.entries((response.links ?? {}) as Record<string, { operationId: string; parameters: Record<string, string> }>).map(([name, link]) => ({
      from: op.operationId,
      status,
      name,
      operationId: link.operationId,
      parameters: link.parameters,
    })),
  ),
);

/** The schema of a JSON body's property, through allOf/oneOf. */
function hasProperty(schema: any, property: string): boolean {
  if (!schema || typeof schema !== 'object') return false;
  if (schema.properties && property in schema.properties) return true;
  return [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].some((s: any) => hasProperty(s, property));
}

describe('CONTRACT-1: OpenAPI links', () => {
  it('the flows that create a resource link to the operations that use it', () => {
    const from = (id: string) => links.filter((l) => l.from === id).map((l) => l.operationId).sort();
    expect(from('createBoard')).toEqual(
      expect.arrayContaining(['getBoard', 'saveBoard', 'saveBoardLayouts', 'deleteBoard', 'duplicateBoard', 'getBoardHistory', 'exportBoard']),
    );
    expect(from('addBoardItem')).toEqual(expect.arrayContaining(['updateBoardItem', 'deleteBoardItem']));
    expect(from('addBoardSection')).toEqual(expect.arrayContaining(['updateBoardSection', 'deleteBoardSection']));
    expect(from('createApp')).toEqual(expect.arrayContaining(['getApp', 'updateApp', 'deleteApp']));
    expect(from('createUser')).toEqual(['deleteUser']);
    expect(from('createGroup')).toEqual(expect.arrayContaining(['deleteGroup']));
    expect(from('createApiKey')).toEqual(['deleteApiKey']);
    expect(from('createIntegration')).toEqual(expect.arrayContaining(['getIntegration', 'deleteIntegration']));
    expect(from('importBoard')).toEqual(expect.arrayContaining(['getBoard', 'exportBoard', 'deleteBoard']));
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
      const declared = new Set(target.parameters.map((p) => p.name));
      for (const p of target.parameters.filter((p) => p.in === 'path')) {
        if (!(p.name in link.parameters)) problems.push(`${where}: path parameter ${p.name} not set`);
      }
      for (const [name, expression] of Object.entries(link.parameters)) {
        if (!declared.has(name)) problems.push(`${where}: ${link.operationId} has no parameter ${name}`);
        const response = /^\$response\.body#\/(\w+)$/.exec(expression);
        const body = /^\$request\.body#\/(\w+)$/.exec(expression);
        const path = /^\$request\.path\.(\w+)$/.exec(expression);
        const responseSchema = document.paths[source.path][source.method].responses[link.status].content?.['application/json']?.schema;
        if (response && !hasProperty(responseSchema, response[1])) problems.push(`${where}: the response has no ${response[1]}`);
        else if (body && !hasProperty(source.body?.schema, body[1])) problems.push(`${where}: the request body has no ${body[1]}`);
        else if (path && !source.parameters.some((p) => p.in === 'path' && p.name === path[1])) problems.push(`${where}: no path parameter ${path[1]}`);
        else if (!response && !body && !path) problems.push(`${where}: unsupported expression ${expression}`);
      }
    }
    expect(links.length).toBeGreaterThan(30);
    expect(problems).toEqual([]);
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
});
