/** FEED-1..FEED-6: the `rssFeed` widget's live data: each feed its options name, fetched and cached on its own. */
import { fetchFeed, type FeedData } from '../../../integrations/clients/feed';
import { defaultSourceSettings } from '../../../integrations/clients/types';
import type { DataSource, LiveKind, WidgetOptions } from '../types';

/** FEED-1: the most feeds one widget reads; the posts shown per feed when the options say nothing. */
export const maxFeedsPerWidget = 20;
export const defaultPostsShown = 20;

/** The shown name of a feed URL: origin and path, never its query or user info (they can carry tokens). */
function shownName(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return 'not a URL';
  }
}

/** FEED-1: one source per distinct feed URL of `feedUrls` (at most 20), keyed by the URL. Pure. */
export function feedSources(options: WidgetOptions): DataSource[] {
  const urls = Array.isArray(options.feedUrls) ? options.feedUrls.filter((url): url is string => typeof url === 'string' && url.trim() !== '') : [];
  const keys = [...new Set(urls.map((url) => url.trim()))].slice(0, maxFeedsPerWidget);
  return keys.map((key) => ({ key, name: shownName(key) }));
}

/** FEED-6: one feed's data for one item's options: `maximumAmountPosts` per feed, `hideDescription`, `showPosterImage`. Pure. */
export function feedView(data: FeedData, options: WidgetOptions): FeedData {
  const limit = typeof options.maximumAmountPosts === 'number' && options.maximumAmountPosts >= 1 ? Math.floor(options.maximumAmountPosts) : defaultPostsShown;
  const hideDescription = options.hideDescription === true;
  const showImage = options.showPosterImage === true;
  return {
    ...data,
    items: data.items.slice(0, limit).map((item) => ({ ...item, summary: hideDescription ? null : item.summary, image: showImage ? item.image : null })),
  };
}

export const rssFeedKind: LiveKind<FeedData> = {
  widgetKind: 'rssFeed',
  ttlMs: 10 * 60_000,
  integrationKinds: [],
  // Everything asked upstream is the URL (the source's key); the options only shape the view.
  query: () => ({}),
  sources: feedSources,
  fromSource: (ctx, source) => fetchFeed(ctx, source.key, (ctx.sources ?? defaultSourceSettings).feedAllowLocal),
  view: feedView,
};
