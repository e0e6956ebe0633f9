/**
 * SEARCH-2, SEARCH-4: what the board search matches and where a web search goes (pure, no DOM). An entry matches
 * when the query (trimmed, case- and accent-insensitive) is part of its name, description or address; matches are
 * ranked name-prefix, then a word of the name, then elsewhere in the name, the description, the address, and keep
 * the board's reading order within a rank.
 */
import { safeLink } from './widgets/sanitize';

export interface SearchEntry {
  name: string;
  description: string | null;
  href: string;
}

export const fold = (text: string) => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

function rank(entry: SearchEntry, query: string): number {
  const name = fold(entry.name);
  if (name.startsWith(query)) return 0;
  if (name.includes(` ${query}`)) return 1;
  if (name.includes(query)) return 2;
  if (entry.description && fold(entry.description).includes(query)) return 3;
  return fold(entry.href).includes(query) ? 4 : -1;
}

/** The entries matching `query`, best first; none for an empty query. */
export function matchEntries<T extends SearchEntry>(entries: T[], query: string): T[] {
  const q = fold(query.trim());
  if (!q) return [];
  return entries
    .map((entry, index) => ({ entry, index, rank: rank(entry, q) }))
    .filter((m) => m.rank >= 0)
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((m) => m.entry);
}

/** SEARCH-4: the board's web search template with `{query}` filled in (encoded), when it is an http(s) address. */
export function webSearchHref(template: unknown, query: string): string | null {
  const q = query.trim();
  if (typeof template !== 'string' || !template.includes('{query}') || !q) return null;
  const href = safeLink(template.split('{query}').join(encodeURIComponent(q)));
  return href && /^https?:\/\//i.test(href) ? href : null;
}
