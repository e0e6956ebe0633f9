/**
 * The rssFeed widget's live data (FEED-1..FEED-6): sources, view, text and address rules as pure functions, then the
 * kind fetching real-world-shaped RSS 2.0, Atom and RSS 1.0 documents from a local HTTP server (fixtures/), a broken
 * feed, a huge one, and the refusal of this server's own addresses.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { feedUrlProblem, isComplete, isLocalAddress, type FeedData } from '../../../src/integrations/clients/feed';
import { httpUrl, plainText } from '../../../src/integrations/clients/text';
import { ServiceError, type ClientContext } from '../../../src/integrations/clients/types';
import { outboundFetch } from '../../../src/outbound/fetch';
import { feedSources, feedView, maxFeedsPerWidget, rssFeedKind } from '../../../src/widgets/data/kinds/rssFeed';
import { startHttpFixture, type HttpFixture } from '../../support/httpFixture';

const fixture = (name: string) => readFileSync(path.join(__dirname, 'fixtures', name), 'utf8');
const local: ClientContext = {
  fetch: outboundFetch,
  timeoutMs: 30_000,
  maxBytes: 1024 * 1024,
  now: () => new Date(),
  // The fixture server listens on 127.0.0.1, which feeds may only name with FEED_ALLOW_LOCAL.
  sources: { openMeteoUrl: 'http://127.0.0.1:9', feedAllowLocal: true },
};

describe('rssFeed: pure parts', () => {
  it('FEED-4: markup becomes its text: scripts, styles, images and frames dropped, entities decoded', () => {
    expect(plainText('<p>Test <strong>this</strong> &amp; that</p><script>alert(1)</script><style>p{}</style><img src=x onerror=alert(1)><iframe src="https://x"></iframe>')).toBe('Test this & that');
    expect(plainText('<a href="javascript:alert(1)">Read more</a>')).toBe('Read more');
    expect(plainText('x'.repeat(5000), 100)).toHaveLength(100);
    expect(plainText(null)).toBe('');
  });

  it('FEED-5: only absolute http(s) URLs pass, relative ones resolved against the feed', () => {
    expect(httpUrl('/a', 'https://news.example.org/feed')).toBe('https://news.example.org/a');
    expect(httpUrl('javascript:alert(1)')).toBeNull();
    expect(httpUrl('data:image/png;base64,AAAA')).toBeNull();
    expect(httpUrl('not a url')).toBeNull();
  });

  it('FEED-3: only http(s); this server itself (localhost, loopback, unspecified, link-local) unless allowed; LAN addresses pass', () => {
    expect(feedUrlProblem('ftp://news.example.org/feed', false)).toBe('the feed URL is not http(s)');
    expect(feedUrlProblem('file:///etc/passwd', true)).toBe('the feed URL is not http(s)');
    expect(feedUrlProblem('not a url', false)).toBe('the feed URL is not a URL');
    for (const url of ['http://localhost:8080/feed', 'http://127.0.0.1/feed', 'http://[::1]/feed', 'http://169.254.169.254/latest/meta-data', 'http://0.0.0.0/', 'http://[::ffff:127.0.0.1]/', 'http://LOCALHOST./', 'http://0x7f.1/']) {
      expect(feedUrlProblem(url, false)).toMatch(/this server itself/);
      expect(feedUrlProblem(url, true)).toBeNull();
    }
    for (const url of ['http://192.168.1.10/feed', 'http://10.0.0.5/rss', 'https://news.example.org/feed']) expect(feedUrlProblem(url, false)).toBeNull();
    expect(isLocalAddress('fe80::1')).toBe(true);
    expect(isLocalAddress('172.16.0.1')).toBe(false);
  });

  it('FEED-2: a document whose root element is not closed at its end is cut off (a stray & is not)', () => {
    expect(isComplete('<?xml version="1.0"?>\n<!-- generator --><rss version="2.0"><channel><title>a & b</title></channel></rss>\n')).toBe(true);
    expect(isComplete('<rdf:RDF xmlns:rdf="x"><item/></rdf:RDF>')).toBe(true);
    expect(isComplete('<rss version="2.0"><channel><title>cut')).toBe(false);
    expect(isComplete('just text')).toBe(false);
  });

  it('FEED-1: one source per distinct URL, at most 20, named without the query', () => {
    expect(feedSources({ feedUrls: ['https://a.example/feed?token=secret', 'https://a.example/feed?token=secret', ' ', 7, 'https://b.example/'] })).toEqual([
      { key: 'https://a.example/feed?token=secret', name: 'a.example/feed' },
      { key: 'https://b.example/', name: 'b.example' },
    ]);
    expect(feedSources({})).toEqual([]);
    expect(feedSources({ feedUrls: Array.from({ length: 30 }, (_, i) => `https://feeds.example/${i}`) })).toHaveLength(maxFeedsPerWidget);
  });

  it('FEED-6: the view applies maximumAmountPosts, hideDescription and showPosterImage', () => {
    const data: FeedData = {
      title: 'T',
      link: null,
      items: [1, 2, 3].map((n) => ({ title: `Post ${n}`, link: null, published: null, summary: `Summary ${n}`, image: `https://img.example/${n}.jpg` })),
    };
    expect(feedView(data, { maximumAmountPosts: 2 }).items).toEqual([
      { title: 'Post 1', link: null, published: null, summary: 'Summary 1', image: null },
      { title: 'Post 2', link: null, published: null, summary: 'Summary 2', image: null },
    ]);
    expect(feedView(data, { hideDescription: true, showPosterImage: true }).items[2]).toEqual({ title: 'Post 3', link: null, published: null, summary: null, image: 'https://img.example/3.jpg' });
  });
});

describe('rssFeed: feeds from a local HTTP server', () => {
  let server: HttpFixture;
  beforeAll(async () => {
    server = await startHttpFixture({
      '/rss2.xml': { headers: { 'content-type': 'application/rss+xml; charset=UTF-8' }, body: fixture('rss2.xml') },
      '/atom.xml': { headers: { 'content-type': 'application/atom+xml' }, body: fixture('atom.xml') },
      '/rss1.xml': { headers: { 'content-type': 'application/rdf+xml' }, body: fixture('rss1.xml') },
      '/broken.xml': { headers: { 'content-type': 'application/rss+xml' }, body: fixture('rss2.xml').slice(0, 700) },
      '/page.html': { headers: { 'content-type': 'text/html' }, body: '<!doctype html><html><body><h1>Welcome</h1></body></html>' },
      // Streamed without a Content-Length: the cap is met while reading.
      '/huge.xml': {
        headers: { 'content-type': 'application/rss+xml', 'transfer-encoding': 'chunked' },
        body: `<?xml version="1.0"?><rss version="2.0"><channel><title>Huge</title>${'<item><title>x</title><description>' + 'y'.repeat(1000) + '</description></item>'.repeat(1)}`.repeat(3000),
      },
      '/missing.xml': { status: 404, body: 'not here' },
    });
  });
  afterAll(() => server?.close());

  const source = (name: string) => feedSources({ feedUrls: [`${server.url}/${name}`] })[0];

  it('FEED-2, FEED-4, FEED-5: RSS 2.0: title, link, items with plain-text summaries, http(s) links and images only', async () => {
    const data = await rssFeedKind.fromSource!(local, source('rss2.xml'), {});
    expect(data.title).toBe('Homelab & Self-Hosting Weekly');
    expect(data.link).toBe('https://news.example.org/');
    expect(data.items).toEqual([
      {
        title: 'Backups that restore: a checklist',
        link: 'https://news.example.org/2026/11/backups-that-restore/',
        published: '2026-11-27T18:00:00.000Z',
        summary: 'Test your restores, not just your backups. Read more',
        image: 'https://news.example.org/wp-content/uploads/2026/11/restore.jpg',
      },
      { title: 'Reverse proxies compared', link: 'https://news.example.org/2026/11/reverse-proxies/', published: '2026-11-25T09:30:00.000Z', summary: 'Caddy, nginx and Traefik — side by side.', image: null },
      { title: 'A link that is not a link', link: null, published: null, summary: 'Nothing to click.', image: null },
    ]);
    expect(JSON.stringify(data)).not.toMatch(/<|script|javascript:|onerror|data:image/);
  });

  it('FEED-2: Atom: alternate links, html and xhtml content as text, published or updated dates', async () => {
    const data = await rssFeedKind.fromSource!(local, source('atom.xml'), {});
    expect(data.title).toBe('Release notes');
    expect(data.link).toBe('https://code.example.net/app/releases');
    expect(data.items.map(({ title, link, published, summary }) => ({ title, link, published, summary }))).toEqual([
      { title: 'v2.4.0', link: 'https://code.example.net/app/releases/tag/v2.4.0', published: '2026-11-26T12:00:00.000Z', summary: 'Changes * Faster sync * Fixed --dry-run' },
      { title: 'v2.3.1 (security)', link: 'https://code.example.net/app/releases/tag/v2.3.1', published: '2026-11-10T07:15:00.000Z', summary: 'Patches CVE-2026-0001.' },
    ]);
    expect(JSON.stringify(data)).not.toMatch(/<|iframe/);
  });

  it('FEED-2: RSS 1.0 (RDF)', async () => {
    const data = await rssFeedKind.fromSource!(local, source('rss1.xml'), {});
    expect(data).toEqual({
      title: 'Planet Example',
      link: 'https://planet.example.com/',
      items: [{ title: 'Kernel notes for November', link: 'https://blog.example.com/posts/kernel-notes', published: '2026-11-20T10:00:00.000Z', summary: 'What changed in the kernel this month.', image: null }],
    });
  });

  it('FEED-2: a broken feed, an HTML page and a 404 are ServiceErrors (shown as the source\'s error)', async () => {
    await expect(rssFeedKind.fromSource!(local, source('broken.xml'), {})).rejects.toMatchObject({ reason: 'bad-answer', message: 'the feed is cut off or not XML (its root element is not closed)' });
    await expect(rssFeedKind.fromSource!(local, source('page.html'), {})).rejects.toMatchObject({ reason: 'bad-answer' });
    await expect(rssFeedKind.fromSource!(local, source('missing.xml'), {})).rejects.toMatchObject({ reason: 'failed', message: 'the feed server answered HTTP 404' });
  });

  it('FEED-2: a feed larger than the cap is given up while reading: a bounded error, not a parse of it', async () => {
    const small: ClientContext = { ...local, maxBytes: 256 * 1024 };
    await expect(rssFeedKind.fromSource!(small, source('huge.xml'), {})).rejects.toMatchObject({ reason: 'too-large', message: `${server.url}: answer larger than ${256 * 1024} bytes` });
  });

  it('FEED-3: by default a feed on this server itself is refused before any request is sent', async () => {
    const before = server.requests.length;
    const strict: ClientContext = { ...local, sources: undefined };
    await expect(rssFeedKind.fromSource!(strict, source('rss2.xml'), {})).rejects.toThrow(ServiceError);
    await expect(rssFeedKind.fromSource!(strict, feedSources({ feedUrls: ['javascript:alert(1)'] })[0], {})).rejects.toMatchObject({ message: 'the feed URL is not http(s)' });
    expect(server.requests.length).toBe(before);
  });

  it('FEED-6: the kind\'s view over fetched data', async () => {
    const data = await rssFeedKind.fromSource!(local, source('rss2.xml'), {});
    const shown = rssFeedKind.view!(data, { maximumAmountPosts: 1, showPosterImage: true });
    expect(shown.items).toHaveLength(1);
    expect(shown.items[0].image).toBe('https://news.example.org/wp-content/uploads/2026/11/restore.jpg');
  });
});
