/**
 * The viewer's tools on a board page (THEMEVIEW-2, SEARCH-1): the Search button and the colour scheme control, in a
 * bar between the top bar and the board (so they come in that place in the tab order too). Drawn once: a redraw of
 * the board leaves them alone.
 */
import { el } from './dom';
import { searchBox, type SearchSource } from './search';
import { schemeControl } from './theme';

let drawn = false;

export function pageTools(source: SearchSource): void {
  if (drawn) return;
  drawn = true;
  const bar = el('div', { className: 'page-tools' }, [searchBox(source).button, schemeControl()]);
  const topbar = document.getElementById('topbar');
  if (topbar) topbar.after(bar);
  else document.body.prepend(bar);
}
