/**
 * Colour schemes (THEMEVIEW-1..3): the page is light or dark. The viewer's choice (the scheme control, remembered in
 * this browser's localStorage) wins over the board's `colorScheme`; `auto` follows `prefers-color-scheme`, also
 * when it changes while the page is open. The resolved scheme is `<html data-scheme="light|dark">`, which the style
 * sheet (and a board's custom CSS) keys on. THEMEVIEW-3: the board's primary and secondary colours are also given
 * as text colours that reach WCAG AA on each scheme's backgrounds (contrast.ts).
 */
import { el } from './dom';
import { readableOn, textOn } from './contrast';

import { isScheme, schemeStorageKey as storageKey, storedScheme, type Scheme } from './schemeChoice';

export type { Scheme };
const system = window.matchMedia('(prefers-color-scheme: dark)');

let boardScheme: Scheme = 'auto';
let control: HTMLSelectElement | null = null;
/** The choice made on this page, used when the browser refuses storage. */
let unsaved: Scheme | null = null;

const viewerScheme = (): Scheme | null => storedScheme(unsaved);

/** THEMEVIEW-1: the scheme in force: the viewer's, else the board's, `auto` resolved by the system's preference. */
export function resolveScheme(viewer: Scheme | null, board: Scheme, systemDark: boolean): 'light' | 'dark' {
  const chosen = viewer ?? board;
  return chosen === 'auto' ? (systemDark ? 'dark' : 'light') : chosen;
}

function apply(): void {
  const viewer = viewerScheme();
  const scheme = resolveScheme(viewer, boardScheme, system.matches);
  document.documentElement.dataset.scheme = scheme;
  if (control) control.value = viewer ?? '';
}
system.addEventListener('change', apply);
window.addEventListener('storage', (event) => event.key === storageKey && apply());

/** The board's setting (a missing or unknown value is `auto`) and its colours as readable text in both schemes. */
export function applyScheme(board: object & { colorScheme?: unknown }): void {
  boardScheme = isScheme(board.colorScheme) ? board.colorScheme : 'auto';
  apply();
  const root = document.documentElement;
  const computed = getComputedStyle(root);
  const read = (name: string) => computed.getPropertyValue(name).trim();
  const [light, lightSurface, dark, darkSurface] = ['#f6f8fa', '#ffffff', '#0d1117', '#161b22'];
  for (const name of ['primary', 'secondary']) {
    const color = read(`--${name}`);
    root.style.setProperty(`--${name}-on-light`, readableOn(color, [light, lightSurface], false));
    root.style.setProperty(`--${name}-on-dark`, readableOn(color, [dark, darkSurface], true));
  }
  root.style.setProperty('--on-primary', textOn(read('--primary')));
}

/** THEMEVIEW-2: the viewer's control: the board's scheme, light, dark or the system's; remembered in this browser. */
export function schemeControl(): HTMLElement {
  const select = el('select', { className: 'scheme', ariaLabel: 'Colour scheme', title: 'Colour scheme' }, [
    el('option', { text: 'Board default' }),
    el('option', { text: 'Light' }),
    el('option', { text: 'Dark' }),
    el('option', { text: 'System' }),
  ]) as HTMLSelectElement;
  ['', 'light', 'dark', 'auto'].forEach((value, i) => (select.options[i].value = value));
  select.addEventListener('change', () => {
    unsaved = isScheme(select.value) ? select.value : null;
    try {
      if (unsaved) localStorage.setItem(storageKey, unsaved);
      else localStorage.removeItem(storageKey);
    } catch {
      // not remembered past this page
    }
    apply();
  });
  control = select;
  apply();
  return select;
}
