/**
 * Response compression (HTTP-7) without a server: the Accept-Encoding negotiation, and compressed forms made once per
 * body and counted by the board document cache.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { EncodedForms } from '../../src/core/contentCoding';
import { negotiateCoding } from '../../src/http/compression';
import { BoardDocumentCache, CachedDocument } from '../../src/boards/document/cache';

describe('HTTP-7: Accept-Encoding', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['identity', null],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['gzip;q=1.0, br;q=0.5', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', null],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP;Q=0.8, deflate', 'gzip'],
  ])('%j -> %j', (header, coding) => {
    expect(negotiateCoding(header)).toBe(coding);
  });
});

describe('HTTP-7: compressed forms', () => {
  const text = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: `item${i}`, kind: 'clock' })) });

  it('compresses each coding once and keeps the bytes', async () => {
    let reads = 0;
    const forms = new EncodedForms(() => {
      reads += 1;
      return [Buffer.from(text.slice(0, 100)), Buffer.from(text.slice(100))];
    });
    const [br, again] = await Promise.all([forms.get('br'), forms.get('br')]);
    expect(again).toBe(br);
    expect(brotliDecompressSync(br).toString()).toBe(text);
    expect(gunzipSync(await forms.get('gzip')).toString()).toBe(text);
    expect(await forms.get('br')).toBe(br);
    expect(reads).toBe(2);
    expect(forms.bytes).toBe(br.length + (await forms.get('gzip')).length);
  });

  it('a cached document keeps its forms, counted against the cache budget, and loses them with the entry', async () => {
    const entryOf = (body: string): CachedDocument => ({ parts: [Buffer.from(body)], length: Buffer.byteLength(body), etag: '"x"', hasCategorySections: false });
    const first = entryOf(text);
    const cache = new BoardDocumentCache(first.length * 2 + 2000);
    const bytes = () => (cache as unknown as { bytes: number }).bytes;
    cache.set('first', 'b1', 1, first);
    expect(cache.formsOf(first)).toBe(cache.formsOf(first));
    const compressed = await cache.formsOf(first).get('gzip');
    expect(compressed.length).toBeLessThan(2000);
    expect(bytes()).toBe(first.length + compressed.length);
    const second = entryOf(text.replace(/item/g, 'meti'));
    cache.set('second', 'b2', 1, second);
    expect(bytes()).toBe(first.length + compressed.length + second.length);
    // A third pushes out the least recently used, whose forms leave with it.
    const third = entryOf(text.replace(/item/g, 'tmei'));
    cache.set('third', 'b3', 1, third);
    expect(cache.get('first')).toBeUndefined();
    expect(bytes()).toBe(second.length + third.length);
  });
});
