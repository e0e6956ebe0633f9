/**
 * PAGE-7: the pages' script and style sheet are not downloaded again on every load. The pages name them by URLs with
 * their content hash, answered `immutable` for a year; any other request is revalidated by the ETag (304, no body).
 */
import { createHash } from 'node:crypto';
import { expectError } from '../support/expect';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk } from '../boards-document/helpers';

const server = useTestServer();
const immutable = 'public, max-age=31536000, immutable';
const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

describe('page assets (PAGE-7)', () => {
  it('PAGE-7: the board page names its script and style sheet by their content hash; those URLs are immutable for a year, with the hash as ETag', async () => {
    const name = unique('cached-');
    expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: true } }), 201);
    const page = await server.call('GET', `/boards/${name}`, { key: null });
    expect(page.status).toBe(200);
    const script = /<script src="(\/assets\/board\.js\?v=([0-9a-f]{16}))"><\/script>/.exec(page.body)!;
    const style = /<link rel="stylesheet" href="(\/assets\/board\.css\?v=([0-9a-f]{16}))">/.exec(page.body)!;
    expect(script).not.toBeNull();
    expect(style).not.toBeNull();
    for (const [, url, version] of [script, style]) {
      const asset = await server.call('GET', url, { key: null });
      expect([url, asset.status, asset.headers.get('cache-control'), asset.headers.get('etag')]).toEqual([url, 200, immutable, `"${version}"`]);
      expect(hashOf(asset.body)).toBe(version);
    }
    // The board list (/) names its own script the same way.
    const list = await server.call('GET', '/', { key: null });
    const listScript = /<script src="(\/assets\/list\.js\?v=[0-9a-f]{16})"><\/script>/.exec(list.body);
    expect(listScript).not.toBeNull();
    expect((await server.call('GET', listScript![1], { key: null })).headers.get('cache-control')).toBe(immutable);
  });

  it('PAGE-7: without the current hash an asset is revalidated: no-cache with its ETag, and If-None-Match with it answers 304 without the file', async () => {
    for (const file of ['board.js', 'scheme.js', 'list.js', 'proposal.js', 'board.css', 'markdown.js', 'live.js']) {
      const plain = await server.call('GET', `/assets/${file}`, { key: null });
      expect([file, plain.status, plain.headers.get('cache-control')]).toEqual([file, 200, 'no-cache']);
      const etag = plain.headers.get('etag')!;
      expect(etag).toBe(`"${hashOf(plain.body)}"`);
      const old = await server.call('GET', `/assets/${file}?v=0123456789abcdef`, { key: null });
      expect([file, old.status, old.headers.get('cache-control'), old.headers.get('etag')]).toEqual([file, 200, 'no-cache', etag]);
      const again = await server.call('GET', `/assets/${file}`, { key: null, headers: { 'If-None-Match': etag } });
      expect([file, again.status, again.body, again.headers.get('etag')]).toEqual([file, 304, undefined, etag]);
      const weak = await server.call('GET', `/assets/${file}`, { key: null, headers: { 'If-None-Match': `"other", W/${etag}` } });
      expect([file, weak.status]).toEqual([file, 304]);
      const stale = await server.call('GET', `/assets/${file}`, { key: null, headers: { 'If-None-Match': '"0123456789abcdef"' } });
      expect([file, stale.status]).toEqual([file, 200]);
    }
  });

  it('PAGE-7: a version that is not a hex hash, or a file that is none of the four, is a 400', async () => {
    expectError(await server.call('GET', '/assets/board.js?v=not-hex', { key: null }), 400, 'BAD_REQUEST');
    expectError(await server.call('GET', '/assets/other.js', { key: null }), 400, 'BAD_REQUEST');
  });
});
