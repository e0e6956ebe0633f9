import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk } from '../boards-document/helpers';

const server = useTestServer();

const headersOf = (result: { headers: Headers }) => ({
  cacheControl: result.headers.get('cache-control'),
  nosniff: result.headers.get('x-content-type-options'),
});

describe('HTTP-11: every answer says nosniff; what a cache may keep', () => {
  it('HTTP-11: authenticated JSON answers are no-store, with nosniff', async () => {
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('hdr-'), columnCount: 12, isPublic: true } }), 201);
    for (const result of [
      await server.call('GET', '/api/boards'),
      await server.call('GET', `/api/boards/${boardId}`),
      await server.call('GET', '/api/auth/session'),
      await server.call('GET', '/api/boards/nosuchboard'),
    ]) {
      expect(headersOf(result)).toEqual({ cacheControl: 'no-store', nosniff: 'nosniff' });
    }
  });

  it('HTTP-11: an anonymous read of a public board (it has an ETag) is private, no-cache, its 304 too; other anonymous answers are no-store', async () => {
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('hdr-'), columnCount: 12, isPublic: true } }), 201);
    const read = await server.call('GET', `/api/boards/${boardId}`, { key: null });
    expect(read.status).toBe(200);
    expect(headersOf(read)).toEqual({ cacheControl: 'private, no-cache', nosniff: 'nosniff' });
    const revalidated = await server.call('GET', `/api/boards/${boardId}`, { key: null, headers: { 'If-None-Match': read.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
    expect(headersOf(revalidated)).toEqual({ cacheControl: 'private, no-cache', nosniff: 'nosniff' });
    expect(headersOf(await server.call('GET', '/api/boards', { key: null }))).toEqual({ cacheControl: 'no-store', nosniff: 'nosniff' });
    const missing = await server.call('GET', '/api/boards/nosuchboard', { key: null });
    expect(missing.status).toBe(404);
    expect(headersOf(missing)).toEqual({ cacheControl: 'no-store', nosniff: 'nosniff' });
  });
});
