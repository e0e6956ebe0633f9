/**
 * The page's layout state that outlives a redraw (NAV-5): which category sections are open (a collapsed section starts
 * folded, the reader may open it) and whether the history drawer is open at phone width. Phone width is narrower
 * than 768 px (NAV-2 uses the same limit for the mobile home board).
 */
import { el } from './dom';

export const narrowQuery = '(max-width: 767px)';
export const isNarrow = () => window.matchMedia(narrowQuery).matches;

const opened = new Map<string, boolean>();

export function sectionOpen(sectionId: string, collapsed: boolean): boolean {
  return opened.get(sectionId) ?? !collapsed;
}

export function rememberSection(sectionId: string, open: boolean): void {
  opened.set(sectionId, open);
}

let drawerOpen = false;

/** At phone width the history panel is a drawer over the grid (so the grid keeps the window's width). */
export function historyDrawer(panel: HTMLElement): HTMLElement {
  panel.classList.add('drawer');
  panel.classList.toggle('open', drawerOpen);
  panel.prepend(el('button', { className: 'drawer-close', type: 'button', ariaLabel: 'Close history', text: '×', onclick: () => setDrawer(panel, false) }));
  return panel;
}

function setDrawer(panel: HTMLElement | null, open: boolean): void {
  drawerOpen = open;
  panel?.classList.toggle('open', open);
}

/** The button that opens the drawer (shown at phone width only, by the style sheet). */
export function drawerToggle(): HTMLElement {
  return el('button', {
    className: 'drawer-toggle',
    type: 'button',
    text: 'History',
    onclick: () => setDrawer(document.querySelector<HTMLElement>('.history'), !drawerOpen),
  });
}
