/**
 * FEED-1..FEED-5: the feed client. Fetches one feed URL through the bounded fetcher (the parser never fetches) and
 * reads RSS 2.0, RSS 1.0 (RDF) and Atom with @rowanmanning/feed-parser; everything passed on is plain text, and
 * links and images only absolute http(s) URLs.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { parseFeed } from '@rowanmanning/feed-parser';
import type { ClientContext } from './types';
import { ServiceError } from './types';
import { httpUrl, plainText } from './text';

export interface FeedItem {
  title: string;
  link: string | null;
  /** ISO date-time, when the feed gives one. */
  published: string | null;
  /** Plain text (FEED-4); null when the item has none. */
  summary: string | null;
  /** An http(s) URL (FEED-5). */
  image: string | null;
}

export interface FeedData {
  title: string;
  link: string | null;
  items: FeedItem[];
}

/** FEED-2: the most items passed on per feed, and the largest feed read (or the context's cap, when smaller). */
export const maxItemsPerFeed = 100;
export const maxFeedBytes = 5 * 1024 * 1024;

const blockedV4 = [
  [0x00000000, 8], // 0.0.0.0/8: "this network"
  [0x7f000000, 8], // 127.0.0.0/8: loopback
  [0xa9fe0000, 16], // 169.254.0.0/16: link-local, where cloud metadata services answer
] as const;

function ipv4Number(address: string): number {
  return address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

/** FEED-3: whether `address` (an IP literal) is this machine or link-local (not a LAN address: those are allowed). */
export function isLocalAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return isLocalAddress(mapped[1]);
  // The URL parser writes an IPv4-mapped address in hex (`::ffff:7f00:1`).
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(bare);
  if (hex) {
    const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return isLocalAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  if (isIP(bare) === 4) {
    const value = ipv4Number(bare);
    return blockedV4.some(([net, bits]) => value >>> (32 - bits) === net >>> (32 - bits));
  }
  if (isIP(bare) === 6) return bare === '::' || bare === '::1' || /^fe[89ab][0-9a-f]:/.test(bare);
  return false;
}

/**
 * FEED-3: why the server will not fetch `raw` as a feed, or null. Only absolute http(s) URLs; unless `allowLocal`
 * (FEED_ALLOW_LOCAL), none whose host is `localhost`, a loopback, unspecified or link-local address. Private LAN
 * addresses are allowed: a self-hosted feed usually lives on one. Pure (the host's resolved addresses are checked
 * by `feedAddressProblem`).
 */
export function feedUrlProblem(raw: string, allowLocal: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'the feed URL is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the feed URL is not http(s)';
  if (allowLocal) return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || isLocalAddress(host)) return 'the feed URL names this server itself, which feeds may not (FEED_ALLOW_LOCAL)';
  return null;
}

/** FEED-3: `feedUrlProblem`, and for a host name: whether any address it resolves to is local. */
export async function feedAddressProblem(raw: string, allowLocal: boolean, timeoutMs = 5000): Promise<string | null> {
  const problem = feedUrlProblem(raw, allowLocal);
  if (problem || allowLocal) return problem;
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return null;
  let addresses: { address: string }[];
  let timer: NodeJS.Timeout | undefined;
  try {
    // The resolver's own retries can outlast the request's deadline: bounded by it too.
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs)));
    addresses = await Promise.race([lookup(host, { all: true }), late]);
  } catch {
    return null; // the fetch reports an unknown or unreachable host
  } finally {
    clearTimeout(timer);
  }
  return addresses.some(({ address }) => isLocalAddress(address)) ? 'the feed URL names this server itself, which feeds may not (FEED_ALLOW_LOCAL)' : null;
}

export async function fetchFeed(ctx: ClientContext, url: string, allowLocal: boolean): Promise<FeedData> {
  const problem = await feedAddressProblem(url, allowLocal, ctx.timeoutMs);
  if (problem) throw new ServiceError('failed', problem);
  const answer = await ctx.fetch(url, {
    headers: { accept: 'application/rss+xml, application/atom+xml, application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5' },
    timeoutMs: ctx.timeoutMs,
    maxBytes: Math.min(ctx.maxBytes, maxFeedBytes),
  });
  if (answer.status === 401 || answer.status === 403) throw new ServiceError('unauthorized', `the feed server refused access (HTTP ${answer.status})`);
  if (answer.status < 200 || answer.status > 299) throw new ServiceError('failed', `the feed server answered HTTP ${answer.status}`);
  return feedFromXml(answer.text, answer.url);
}

/**
 * FEED-2: whether the document's root element is closed at its end. The parser is lenient (real feeds carry stray
 * `&`s and the like, which it rightly reads), so a feed cut off midway would otherwise pass as a shorter one.
 */
export function isComplete(xml: string): boolean {
  const body = xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/gi, '');
  const root = /<([A-Za-z_][\w:.-]*)/.exec(body)?.[1];
  if (!root) return false;
  const escaped = root.replace(/[.]/g, '\\.');
  return new RegExp(`</${escaped}\\s*>\\s*$`).test(body);
}

/** A date as RFC 3339 (years 1 to 9999 only: a hostile feed's year 99999 has no such form), or null. */
function isoDate(date: Date | null): string | null {
  if (!date || Number.isNaN(date.getTime())) return null;
  const year = date.getUTCFullYear();
  return year >= 1 && year <= 9999 ? date.toISOString() : null;
}

/** FEED-2, FEED-4, FEED-5: one feed document as data (plain text, http(s) links). Pure. */
export function feedFromXml(xml: string, base: string): FeedData {
  if (!isComplete(xml)) throw new ServiceError('bad-answer', 'the feed is cut off or not XML (its root element is not closed)');
  let feed: ReturnType<typeof parseFeed>;
  try {
    feed = parseFeed(xml);
  } catch {
    throw new ServiceError('bad-answer', 'the answer is not an RSS or Atom feed');
  }
  const link = httpUrl(feed.url, base);
  const items: FeedItem[] = [];
  for (const item of feed.items.slice(0, maxItemsPerFeed)) {
    const published = item.published ?? item.updated;
    const summary = plainText(item.description ?? item.content);
    const image = item.image?.url ?? item.mediaImages.find((media) => media.url)?.url ?? item.mediaImages.find((media) => media.image)?.image ?? null;
    items.push({
      title: plainText(item.title, 500),
      link: httpUrl(item.url, link ?? base),
      published: isoDate(published),
      summary: summary === '' ? null : summary,
      image: httpUrl(image, link ?? base),
    });
  }
  return { title: plainText(feed.title, 300), link, items };
}
