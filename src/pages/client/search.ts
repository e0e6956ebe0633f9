/**
 * Search and quick launch (SEARCH-1..5): a printable key pressed anywhere on the board page but in a form field, or
 * `/`, or the Search button opens a modal search over the apps and bookmarks the board shows. It follows the ARIA
 * combobox pattern (an input with role combobox controlling a listbox; the active option is aria-activedescendant,
 * focus stays in the input). Arrow keys move, Enter opens the active option by clicking the tile's own link (the same
 * address and target as a click on the tile), Escape closes and focus goes back where it was. With the board's
 * `webSearchUrl`, the last option searches the web for the query (the only one when nothing on the board matches).
 */
import { el } from './dom';
import { matchEntries, webSearchHref, type SearchEntry } from './searchRules';
import type { AppView } from './widgets';

interface Entry extends SearchEntry {
  link: HTMLAnchorElement;
}

export interface SearchSource {
  apps(): Map<string, AppView>;
  webSearchUrl(): unknown;
}

/** SEARCH-2: the board's app and bookmark links in reading order (PAGE-8), one entry per app and address. */
function boardEntries(apps: Map<string, AppView>): Entry[] {
  const seen = new Set<string>();
  const entries: Entry[] = [];
  for (const link of document.querySelectorAll<HTMLAnchorElement>('main.board a[data-app-id]')) {
    const app = apps.get(link.dataset.appId!);
    const key = `${link.dataset.appId} ${link.href}`;
    if (!app || seen.has(key)) continue;
    seen.add(key);
    entries.push({ name: app.name, description: app.description, href: link.href, link });
  }
  return entries;
}

/** SEARCH-1: a key that opens the search: `/` or a printable character, typed outside form fields and menus. */
function opensSearch(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return false;
  if (event.key.length !== 1 || event.key === ' ') return false;
  const target = event.target as HTMLElement | null;
  return !target?.closest?.('input, textarea, select, [contenteditable=""], [contenteditable="true"], dialog[open]');
}

export function searchBox(source: SearchSource): { button: HTMLElement } {
  const list = el('ul', { className: 'search-results', role: 'listbox', ariaLabel: 'Matches' });
  list.id = 'search-results';
  const input = el('input', { className: 'search-input', type: 'text', role: 'combobox', ariaLabel: 'Search apps and bookmarks', autocomplete: 'off' }) as HTMLInputElement;
  input.setAttribute('aria-controls', list.id);
  input.setAttribute('aria-expanded', 'false');
  input.setAttribute('aria-autocomplete', 'list');
  const status = el('p', { className: 'search-status', role: 'status' });
  const dialog = el('dialog', { className: 'search', ariaLabel: 'Search' }, [input, list, status]) as HTMLDialogElement;
  document.body.append(dialog);

  let shown: { label: string; detail: string; open: () => void }[] = [];
  let active = -1;

  const setActive = (index: number) => {
    active = index;
    list.querySelectorAll('[role=option]').forEach((option, i) => option.setAttribute('aria-selected', String(i === index)));
    if (index < 0) return input.removeAttribute('aria-activedescendant');
    input.setAttribute('aria-activedescendant', `search-option-${index}`);
    list.children[index]?.scrollIntoView({ block: 'nearest' });
  };

  const launch = (open: () => void) => {
    dialog.close();
    open();
  };

  const update = () => {
    const query = input.value;
    const matches = matchEntries(boardEntries(source.apps()), query);
    shown = matches.map((entry) => ({ label: entry.name, detail: entry.description || entry.href, open: () => entry.link.click() }));
    // SEARCH-4: the web search, when the board has one: the only option when nothing on the board matches.
    const web = webSearchHref(source.webSearchUrl(), query);
    if (web) shown.push({ label: `Search the web for “${query.trim()}”`, detail: new URL(web).host, open: () => void window.open(web, '_blank', 'noopener,noreferrer') });
    list.replaceChildren(
      ...shown.map((option, i) => {
        const item = el('li', { role: 'option', className: 'search-option' }, [el('span', { className: 'search-name', text: option.label }), el('span', { className: 'search-detail', text: option.detail })]);
        item.id = `search-option-${i}`;
        item.addEventListener('mousedown', (event) => event.preventDefault()); // focus stays in the input
        item.addEventListener('click', () => launch(option.open));
        return item;
      }),
    );
    input.setAttribute('aria-expanded', String(shown.length > 0));
    status.textContent = !query.trim() ? 'Type to search the board’s apps and bookmarks.' : matches.length ? `${matches.length} match${matches.length === 1 ? '' : 'es'}` : 'Nothing on the board matches.';
    setActive(shown.length ? 0 : -1);
  };

  input.addEventListener('input', update);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (shown.length) setActive((active + (event.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      dialog.close();
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (active >= 0) launch(shown[active].open);
    }
  });
  // A click on the backdrop (the dialog box itself, outside its content) closes it.
  dialog.addEventListener('click', (event) => event.target === dialog && dialog.close());

  const open = (text: string) => {
    if (!dialog.open) dialog.showModal();
    input.value = text;
    update();
    input.focus();
  };

  document.addEventListener('keydown', (event) => {
    if (dialog.open || !opensSearch(event)) return;
    event.preventDefault();
    open(event.key === '/' ? '' : event.key);
  });

  const button = el('button', { className: 'search-open', type: 'button', text: 'Search', title: 'Search apps and bookmarks (/ or start typing)', onclick: () => open('') });
  button.setAttribute('aria-keyshortcuts', '/');
  return { button };
}
