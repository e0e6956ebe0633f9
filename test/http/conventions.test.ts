/**
 * HTTP conventions (issue 19): methods (HTTP-5), Location on every 201 (HTTP-6), compressed responses (HTTP-7), pages
 * of the list routes (HTTP-8) and section bodies validated by their kind (HTTP-9), over HTTP against the real app.
 */
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { dereferencedDocument } from '../../src/core/openapiDocument';
import { pageAsset } from '../../src/pages/assets';
import { createActor } from '../support/actors';
import { call, CallOptions, useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { categorySection, createBoard, createIntegration, expectError, expectOk } from '../boards-document/helpers';

const server = useTestServer();

/** Straight to the server, also during the contract run: Prism knows neither HEAD nor OPTIONS. */
const direct = (method: string, path: string, options: CallOptions = {}) => call(server.directUrl, method, path, { key: server.adminKey, ...options });

describe('HTTP-5: methods', () => {
  it('HEAD answers the GET headers without a body', async () => {
    const get = await direct('GET', '/api/users');
    const head = await direct('HEAD', '/api/users');
    expect(head.status).toBe(200);
    expect(head.body).toBeUndefined();
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
  });

  it('OPTIONS answers 204 with Allow; another method is a 405 with Allow', async () => {
    const options = await direct('OPTIONS', '/api/boards', { key: null });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    const notAllowed = await direct('PUT', '/api/boards');
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    expect(notAllowed.body.code).toBe('METHOD_NOT_SUPPORTED');
    expect((await direct('OPTIONS', '/api/nothing-here')).status).toBe(404);
  });
});

describe('HTTP-6: Location on 201', () => {
  it('every 201 of the document declares a required Location header', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(dereferencedDocument().paths ?? {})) {
      for (const [method, operation] of Object.entries(item as Record<string, any>)) {
        const created = operation?.responses?.['201'];
        if (created && created.headers?.Location?.required !== true) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('boards, duplicates, items and sections name the board; users, groups, keys and integrations name themselves', async () => {
    const board = await server.call('POST', '/api/boards', { body: { name: unique('located-'), columnCount: 12, isPublic: false } });
    expect(board.status).toBe(201);
    const boardPath = `/api/boards/${board.body.boardId}`;
    expect(board.headers.get('location')).toBe(boardPath);
    expect((await server.call('GET', board.headers.get('location')!)).body.id).toBe(board.body.boardId);

    const duplicate = await server.call('POST', `${boardPath}/duplicate`, { body: { name: unique('copy-') } });
    expect(duplicate.headers.get('location')).toBe(`/api/boards/${duplicate.body.boardId}`);

    const item = await server.call('POST', '/api/boards/items', { body: { boardId: board.body.boardId, kind: 'clock' } });
    expect(item.status).toBe(201);
    expect(item.headers.get('location')).toBe(boardPath);

    const section = await server.call('POST', `${boardPath}/sections`, { body: categorySection(unique('section'), 'Media', 5) });
    expect(section.status).toBe(201);
    expect(section.headers.get('location')).toBe(boardPath);
    expect(section.headers.get('etag')).toBeTruthy();

    const user = await server.call('POST', '/api/users', { body: { username: unique('located'), password: 'password-123' } });
    expect(user.status).toBe(201);
    expect(user.headers.get('location')).toBe(`/api/users/${user.body.userId}`);
    const group = await server.call('POST', '/api/groups', { body: { name: unique('located') } });
    expect(group.headers.get('location')).toBe(`/api/groups/${group.body.groupId}`);
    const key = await server.call('POST', '/api/api-keys', { body: { name: 'located' } });
    expect(key.headers.get('location')).toBe(`/api/api-keys/${key.body.id}`);
    const integration = await server.call('POST', '/api/integrations', { body: { name: unique('located'), kind: 'mock', url: 'http://127.0.0.1:1' } });
    expect(integration.status).toBe(201);
    expect(integration.headers.get('location')).toBe(`/api/integrations/${integration.body.integrationId}`);
    expect((await server.call('GET', integration.headers.get('location')!)).status).toBe(200);
  });
});

/** A GET straight to the server (fetch would ask for and undo compression itself): status, headers, raw body. */
function rawGet(path: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request(server.directUrl + path, { method, headers: { ApiKey: server.adminKey, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('HTTP-7: compression', () => {
  async function largeBoard() {
    const board = await createBoard(server);
    const items = Array.from({ length: 60 }, (_, i) => ({
      id: unique('item'),
      kind: 'clock',
      options: { is24HourFormat: true },
      integrationIds: [],
      advancedOptions: { title: null, customCssClasses: [], borderColor: '' },
      layouts: [{ layoutId: board.layoutId, sectionId: board.sectionId, xOffset: i % 12, yOffset: Math.floor(i / 12), width: 1, height: 1 }],
    }));
    expectOk(await server.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: [{ id: board.sectionId, kind: 'empty', yOffset: 0, xOffset: 0 }], items } }));
    return board.boardId;
  }

  it('a page script is compressed once per coding for the process and sent as kept (the file never changes)', async () => {
    const plain = await rawGet('/assets/board.js', {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    const br = await rawGet('/assets/board.js', { 'Accept-Encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body)).toEqual(plain.body);
    const gzip = await rawGet('/assets/board.js', { 'Accept-Encoding': 'gzip' });
    expect(gunzipSync(gzip.body)).toEqual(plain.body);
    // The server runs in this process: the asset's kept forms are the two just sent, and asking again makes no more.
    const kept = pageAsset('board.js')!.forms!.bytes;
    expect(kept).toBe(br.body.length + gzip.body.length);
    expect((await rawGet('/assets/board.js', { 'Accept-Encoding': 'br' })).body).toEqual(br.body);
    expect(pageAsset('board.js')!.forms!.bytes).toBe(kept);
  });

  it('a board document is sent brotli- or gzip-compressed as asked, the same document and ETag', async () => {
    const boardId = await largeBoard();
    const plain = await rawGet(`/api/boards/${boardId}`, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(plain.body.length).toBeGreaterThan(4096);
    const br = await rawGet(`/api/boards/${boardId}`, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(plain.body.length / 4);
    expect(brotliDecompressSync(br.body)).toEqual(plain.body);
    expect(br.headers.etag).toBe(plain.headers.etag);
    const gzip = await rawGet(`/api/boards/${boardId}`, { 'Accept-Encoding': 'gzip;q=1, br;q=0.5' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body)).toEqual(plain.body);
    // The cached document keeps its compressed bytes: the same bytes again.
    expect((await rawGet(`/api/boards/${boardId}`, { 'Accept-Encoding': 'br' })).body).toEqual(br.body);
    const head = await rawGet(`/api/boards/${boardId}`, { 'Accept-Encoding': 'br' }, 'HEAD');
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.body.length).toBe(0);
    const notModified = await rawGet(`/api/boards/${boardId}`, { 'Accept-Encoding': 'br', 'If-None-Match': plain.headers.etag! });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.vary).toBe('Accept-Encoding');
  });

  it('small bodies and refused codings are sent as they are; other large bodies are compressed too', async () => {
    const info = await rawGet('/api/info', { 'Accept-Encoding': 'br, gzip' });
    expect(info.body.length).toBeLessThan(1024);
    expect(info.headers['content-encoding']).toBeUndefined();
    expect(info.headers.vary).toBe('Accept-Encoding');
    expect(JSON.parse(info.body.toString()).version).toBeDefined();
    const refused = await rawGet('/api/openapi.json', { 'Accept-Encoding': 'br;q=0, gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    const spec = await rawGet('/api/openapi.json', { 'Accept-Encoding': 'gzip' });
    expect(spec.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(spec.body).toString())).toEqual(JSON.parse(refused.body.toString()));
    const docs = await rawGet('/api/docs', { 'Accept-Encoding': 'br' });
    expect(docs.headers['content-encoding']).toBe('br');
    expect(docs.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(brotliDecompressSync(docs.body).toString()).toContain('<title>Tessera Board-as-Code API</title>');
  });
});

/** Every page of a list route, following `Link: <…>; rel="next"` from the first page on. */
async function followLinks(path: string, key?: string) {
  const pages: any[][] = [];
  let next: string | null = path;
  while (next) {
    const result = await server.call('GET', next, key === undefined ? {} : { key });
    expect(result.status).toBe(200);
    expect(Array.isArray(result.body)).toBe(true);
    pages.push(result.body);
    const link = result.headers.get('link');
    const cursor = result.headers.get('tessera-next-cursor');
    next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : null;
    if (next) expect(new URL(next, 'http://x').searchParams.get('cursor')).toBe(cursor);
    else expect(cursor).toBeNull();
  }
  return pages;
}

describe('HTTP-8: pages of the list routes', () => {
  it('GET /api/boards: limit and cursor page through the whole list in its order; without them, the whole array', async () => {
    const viewer = await createActor(server);
    for (let i = 0; i < 5; i++) await createBoard(server, { isPublic: true });
    const all = expectOk(await server.call('GET', '/api/boards', { key: viewer.key }));
    expect(all.length).toBeGreaterThanOrEqual(5);
    const whole = await server.call('GET', '/api/boards', { key: viewer.key });
    expect(whole.headers.get('link')).toBeNull();

    const pages = await followLinks('/api/boards?limit=2', viewer.key);
    expect(pages.slice(0, -1).every((page) => page.length === 2)).toBe(true);
    expect(pages.flat()).toEqual(all);
    expect(pages.length).toBe(Math.ceil(all.length / 2));
  });

  it('a deleted item does not disturb the next page, and a foreign cursor is a 400', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createBoard(server, { isPublic: true })).boardId);
    const all = expectOk(await server.call('GET', '/api/boards'));
    const start = all.findIndex((board: { id: string }) => board.id === ids[0]);
    const first = await server.call('GET', `/api/boards?limit=${start + 1}`);
    expect(first.body.at(-1).id).toBe(ids[0]);
    await server.db('boards').where({ id: ids[0] }).del();
    const second = await server.call('GET', `/api/boards?limit=1&cursor=${first.headers.get('tessera-next-cursor')}`);
    expect(second.body.map((board: { id: string }) => board.id)).toEqual([ids[1]]);

    const bad = await server.call('GET', '/api/boards?cursor=not-a-cursor');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid cursor' });
    const otherList = await server.call('GET', `/api/users?limit=1`);
    expect((await server.call('GET', `/api/boards?cursor=${otherList.headers.get('tessera-next-cursor')}`)).status).toBe(400);
    expect((await server.call('GET', '/api/boards?limit=0')).status).toBe(400);
  });

  it('users, groups, integrations and API keys page the same way', async () => {
    for (let i = 0; i < 3; i++) {
      await createActor(server, { permissions: ['integration-create'] });
      await createIntegration(server);
      await server.call('POST', '/api/api-keys', { body: { name: `key ${i}` } });
    }
    for (const path of ['/api/users', '/api/groups', '/api/integrations', '/api/api-keys']) {
      const all = expectOk(await server.call('GET', path));
      expect(all.length).toBeGreaterThanOrEqual(3);
      const pages = await followLinks(`${path}?limit=2`);
      expect(pages.flat()).toEqual(all);
    }
    // Other query parameters are kept in the next page's link.
    const admin = expectOk(await server.call('GET', '/api/auth/session'));
    const keys = await server.call('GET', `/api/api-keys?userId=${admin.userId}&limit=1`);
    expect(keys.headers.get('link')).toMatch(new RegExp(`^</api/api-keys\\?userId=${admin.userId}&limit=1&cursor=[^>]+>; rel="next"$`));
  });
});

describe('HTTP-9: section bodies are validated by their kind', () => {
  it('a category section without yOffset gets one issue, about that field', async () => {
    const board = await createBoard(server);
    const section = { id: unique('section'), kind: 'category', name: 'Media', xOffset: 0, collapsed: false };
    const result = await server.call('POST', `/api/boards/${board.boardId}/sections`, { body: section });
    expect(result.status).toBe(400);
    expect(result.body.data.issues).toEqual([expect.objectContaining({ keyword: 'required', params: { missingProperty: 'yOffset' } })]);
  });

  it('the same in a PUT, and an unknown kind is one issue naming the tag', async () => {
    const board = await createBoard(server);
    const missing = await server.call('PUT', `/api/boards/${board.boardId}`, {
      body: { sections: [{ id: board.sectionId, kind: 'empty', xOffset: 0 }], items: [] },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.data.issues).toHaveLength(1);
    expect(missing.body.data.issues[0]).toMatchObject({ instancePath: '/requestBody/sections/0', params: { missingProperty: 'yOffset' } });
    const unknown = await server.call('PUT', `/api/boards/${board.boardId}`, {
      body: { sections: [{ id: board.sectionId, kind: 'shelf', yOffset: 0, xOffset: 0 }], items: [] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.data.issues).toEqual([expect.objectContaining({ keyword: 'discriminator', params: expect.objectContaining({ tag: 'kind', tagValue: 'shelf' }) })]);
  });

  // Straight to the server: the contract run's proxy (Prism) re-serializes a bare JSON string body into invalid JSON.
  it('HTTP-9: a section that is not an object (null, a number, a string, an array) is a 400 on PUT, POST and PATCH, not a 500 (found by schemathesis), nothing written', async () => {
    const board = await createBoard(server);
    const before = await server.call('GET', `/api/boards/${board.boardId}`);
    const direct = (method: string, path: string, body: unknown) => call(server.directUrl, method, path, { key: server.adminKey, body });
    for (const section of [null, 5, [], 'empty']) {
      const saved = await direct('PUT', `/api/boards/${board.boardId}`, { sections: [section], items: [] });
      expectError(saved, 400, 'BAD_REQUEST', 'Input validation failed');
      expect(saved.body.data.issues).toEqual([expect.objectContaining({ instancePath: '/requestBody/sections/0', keyword: 'type' })]);
      expectError(await direct('POST', `/api/boards/${board.boardId}/sections`, section), 400, 'BAD_REQUEST', 'Input validation failed');
      expectError(await direct('PATCH', `/api/boards/${board.boardId}/sections/${board.sectionId}`, section), 400, 'BAD_REQUEST', 'Input validation failed');
    }
    expect((await server.call('GET', `/api/boards/${board.boardId}`)).body).toEqual(before.body);
  });
});

describe('HTTP-10: request heads', () => {
  it('the longest query the contract allows fits: a tRPC input of 4096 four-byte characters (48 KiB URL-encoded)', async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { name: '\u{1F600}'.repeat(2046) } }));
    expect(input.length).toBeGreaterThan(16 * 1024);
    const result = await direct('GET', `/api/trpc/board.getBoardByName?input=${input}`);
    expect(result.status).not.toBe(431);
    expect(result.status).toBe(400);
  });
});
