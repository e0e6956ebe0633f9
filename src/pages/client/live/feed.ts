/**
 * LIVEVIEW-8 `rssFeed`: each feed's posts (the server already applied `maximumAmountPosts`, `hideDescription` and
 * `showPosterImage`, FEED-6): title as a link, when it was published, the summary clamped to `textLinesClamp` lines,
 * the poster image only as an http(s) address; `enableRtl` writes right to left.
 */
import type { components } from '../../../../generated/api';
import { el } from '../dom';
import { safeLink } from '../widgets/sanitize';
import type { LiveView } from './controller';
import { formatRelative, parseWhen } from './format';
import { perResult } from './parts';

type Feed = components['schemas']['FeedData'];

const link = (href: string | null, text: string, className: string) =>
  href ? el('a', { className, href, text, target: '_blank', rel: 'noopener noreferrer' }) : el('span', { className, text });

export const rssFeedView: LiveView = {
  empty: () => 'No feeds: name feed addresses in this widget’s feedUrls option.',
  draw: (results, item) => {
    const now = new Date();
    const lines = typeof item.options.textLinesClamp === 'number' ? Math.min(50, Math.max(1, Math.floor(item.options.textLinesClamp))) : 3;
    const blocks = perResult<Feed>(results, (feed) => [
      ...(results.length > 1 ? [] : [link(safeLink(feed.link), feed.title, 'live-feed-title')]),
      feed.items.length === 0
        ? el('p', { className: 'live-state', text: 'No posts.' })
        : el(
            'ul',
            { className: 'live-posts' },
            feed.items.map((post) => {
              const published = parseWhen(post.published);
              const image = safeLink(post.image);
              const summary = post.summary ? el('p', { className: 'live-summary-text', text: post.summary }) : null;
              summary?.style.setProperty('--lines', String(lines));
              return el('li', { className: 'live-post' }, [
                ...(image && /^https?:/i.test(image) ? [el('img', { className: 'live-poster', src: image, alt: '', loading: 'lazy', referrerpolicy: 'no-referrer' })] : []),
                link(safeLink(post.link), post.title, 'live-post-title'),
                ...(published ? [el('span', { className: 'live-when', text: formatRelative(published, now), title: published.toLocaleString() })] : []),
                ...(summary ? [summary] : []),
              ]);
            }),
          ),
    ]);
    if (item.options.enableRtl === true) for (const block of blocks) block.setAttribute('dir', 'rtl');
    return blocks;
  },
};
