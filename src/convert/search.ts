/**
 * CONV-18: the sources' web search as the board's `webSearchUrl` (THEME-2): a known engine by name, or the source's
 * own URL (homepage and Dashy append the terms to it, Glance puts them at `{QUERY}`).
 */
import { webSearchUrlProblem } from '../boards/settings';

/** Search engines the sources name, as URL templates. */
export const searchEngines: Record<string, string> = {
  duckduckgo: 'https://duckduckgo.com/?q={query}',
  google: 'https://www.google.com/search?q={query}',
  bing: 'https://www.bing.com/search?q={query}',
  baidu: 'https://www.baidu.com/s?wd={query}',
  brave: 'https://search.brave.com/search?q={query}',
  startpage: 'https://www.startpage.com/do/search?query={query}',
  kagi: 'https://kagi.com/search?q={query}',
  perplexity: 'https://www.perplexity.ai/search?q={query}',
};

/** A custom engine's URL as a template: the terms appended (`append`) or at Glance's `{QUERY}`. */
export function customSearch(url: string, style: 'append' | 'glance'): string | null {
  const template = style === 'glance' ? url.trim().split('{QUERY}').join('{query}') : `${url.trim()}{query}`;
  return webSearchUrlProblem(template) === null && template.length <= 2048 ? template : null;
}
