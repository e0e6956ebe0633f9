/**
 * PAGE-13, LIVEVIEW-1: a live tile's body as it is drawn before its data has arrived: "Loading…", busy. board.js
 * draws it (the live views come later, in live.js); the live controller fills the same element.
 */
import { el } from '../dom';
import { kindTitle } from '../widgets/titles';
import type { WidgetItem } from '../widgets/types';

export function liveShell(item: WidgetItem): HTMLElement {
  // A11Y-3: a tile's body scrolls when the data is longer than the tile, so it is reachable by keyboard and named
  const body = el('div', { className: 'live', role: 'group', ariaLabel: `${kindTitle(item.kind)} data` }, [el('p', { className: 'live-state', text: 'Loading…' })]);
  body.tabIndex = 0;
  body.setAttribute('aria-busy', 'true');
  return body;
}
