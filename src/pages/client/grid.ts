/**
 * The board's grid for one breakpoint layout (PAGE-1): sections in order (category titles, collapsed ones folded),
 * items as tiles at their positions and sizes, dynamic sections as tiles holding their own grid.
 */
import { el } from './dom';
import { rememberSection, sectionOpen } from './layout';
import { renderWidget, widgetLabel, type WidgetContext } from './widgets';
import { integrationLabel } from './widgets/titles';

export interface Position {
  layoutId: string;
  sectionId: string;
  xOffset: number;
  yOffset: number;
  width: number;
  height: number;
}
export interface Item {
  id: string;
  kind: string;
  options: Record<string, unknown>;
  integrationIds: string[];
  layouts: Position[];
}
export interface Section {
  id: string;
  kind: 'category' | 'empty' | 'dynamic';
  name?: string;
  yOffset?: number;
  collapsed?: boolean;
  /** Dynamic sections: `title` is shown above their grid (PAGE-12). */
  options?: { title?: unknown };
  layouts?: (Omit<Position, 'sectionId'> & { parentSectionId: string })[];
}
export interface Layout {
  id: string;
  name: string;
  columnCount: number;
  breakpoint: number;
}
export interface Board {
  id: string;
  name: string;
  version: number;
  pageTitle: string | null;
  /** FLEET-1: the source the board is declared in, shown in the header. */
  managedBy?: string | null;
  layouts: Layout[];
  sections: Section[];
  items: Item[];
}
/** What differs from now when a revision is shown (PAGE-4). */
export interface Marks {
  removed: Set<string>;
  moved: Set<string>;
  added: Item[];
}

interface Names extends WidgetContext {
  integrations: Map<string, string>;
  marks: Marks | null;
}

function place(element: HTMLElement, p: { xOffset: number; yOffset: number; width: number; height: number }): HTMLElement {
  element.style.gridColumn = `${p.xOffset + 1} / span ${p.width}`;
  element.style.gridRow = `${p.yOffset + 1} / span ${p.height}`;
  return element;
}

/** What a tile was drawn from; a redraw keeps a tile whose key is unchanged (patchBoard). */
const drawnFrom = new WeakMap<Element, string>();

/** The apps a widget names (VIEW-2), as the page read them: part of what the tile is drawn from. */
function namedApps(item: Item, names: Names): unknown[] {
  const o = item.options;
  const ids = [o.appId, ...(Array.isArray(o.items) ? o.items : [])].filter((id): id is string => typeof id === 'string');
  return ids.map((id) => names.apps.get(id) ?? null);
}

function tile(item: Item, position: Position, names: Names, mark: string): HTMLElement {
  // VIEW-1: the widget's own renderer (src/pages/client/widgets/), a labelled placeholder for kinds not drawn.
  const parts = renderWidget(item, names);
  if (item.integrationIds.length > 0) {
    // VIEW-6: a viewer who may not list the integrations sees how many, never their ids.
    parts.push(el('span', { className: 'integrations', text: integrationLabel(item.integrationIds, names.integrations) }));
  }
  const drawn = place(el('div', { className: `tile widget-${item.kind}${mark}`, dataset: { itemId: item.id, kind: item.kind }, ariaLabel: widgetLabel(item.kind) }, parts), position);
  const integrations = item.integrationIds.map((id) => names.integrations.get(id) ?? null);
  drawnFrom.set(drawn, JSON.stringify([{ ...item, layouts: undefined }, position, mark, namedApps(item, names), integrations]));
  return drawn;
}

/** PAGE-8: reading order, the visual one: top to bottom, then left to right (stable for ties). */
const byPlace = (a: { position: { xOffset: number; yOffset: number } }, b: { position: { xOffset: number; yOffset: number } }) =>
  a.position.yOffset - b.position.yOffset || a.position.xOffset - b.position.xOffset;

function sectionGrid(board: Board, layout: Layout, sectionId: string, columns: number, names: Names): HTMLElement {
  const grid = el('div', { className: 'grid' });
  grid.style.gridTemplateColumns = `repeat(${columns}, minmax(0, 1fr))`;
  // PAGE-10: rows are as tall as a share of a column is wide (board.css), so a tile scales with the window.
  grid.style.setProperty('--columns', String(columns));
  const marks = names.marks;
  // PAGE-8: the tiles go into the DOM in the order they are seen (y, then x, of this layout), so that keyboard focus
  // and screen readers follow the grid, whatever order the board lists its items in.
  const tiles: { position: { xOffset: number; yOffset: number }; element: () => HTMLElement }[] = [];
  for (const item of board.items) {
    const position = item.layouts.find((p) => p.layoutId === layout.id && p.sectionId === sectionId);
    if (!position) continue;
    const mark = marks?.removed.has(item.id) ? ' removed' : marks?.moved.has(item.id) ? ' moved' : '';
    tiles.push({ position, element: () => tile(item, position, names, mark) });
  }
  for (const item of marks?.added ?? []) {
    const position = item.layouts.find((p) => p.layoutId === layout.id && p.sectionId === sectionId);
    if (position) tiles.push({ position, element: () => tile(item, position, names, ' added') });
  }
  for (const section of board.sections) {
    if (section.kind !== 'dynamic') continue;
    const position = section.layouts?.find((p) => p.layoutId === layout.id && p.parentSectionId === sectionId);
    if (!position) continue;
    tiles.push({
      position,
      element: () => {
        // PAGE-12: a dynamic section's title (its options) heads it, as text, like a category's name.
        const title = typeof section.options?.title === 'string' ? section.options.title.trim() : '';
        const parts = [sectionGrid(board, layout, section.id, position.width, names)];
        if (title !== '') parts.unshift(el('div', { className: 'dynamic-title', text: title }));
        const nested = el('div', { className: 'tile dynamic', dataset: { sectionId: section.id } }, parts);
        drawnFrom.set(nested, JSON.stringify(['dynamic', position, title]));
        return place(nested, position);
      },
    });
  }
  for (const entry of tiles.sort(byPlace)) grid.append(entry.element());
  return grid;
}

export function drawGrid(board: Board, layout: Layout, names: Names): HTMLElement {
  const sections = board.sections.filter((s) => s.kind !== 'dynamic').sort((a, b) => (a.yOffset ?? 0) - (b.yOffset ?? 0));
  return el(
    'main',
    { className: 'board', dataset: { layoutId: layout.id } },
    sections.map((section) => {
      const body = sectionGrid(board, layout, section.id, layout.columnCount, names);
      if (section.kind !== 'category') return el('section', { className: 'section', dataset: { sectionId: section.id } }, [body]);
      // NAV-5: a category is a titled group the reader folds and unfolds; a collapsed one starts folded.
      const group = el('details', { className: section.collapsed ? 'section category-group collapsed' : 'section category-group', dataset: { sectionId: section.id } }, [
        el('summary', { className: 'category', text: section.name ?? '' }),
        body,
      ]) as HTMLDetailsElement;
      group.open = sectionOpen(section.id, section.collapsed === true);
      group.addEventListener('toggle', () => rememberSection(section.id, group.open));
      return group;
    }),
  );
}

const tileId = (tile: Element) => {
  const data = (tile as HTMLElement).dataset;
  return data.itemId ? `item ${data.itemId}` : `section ${data.sectionId}`;
};

/**
 * PAGE-2: brings the tiles of `grid` to those of `fresh`, keeping each tile whose key is unchanged where it is
 * (a frame moved or taken out of the page reloads). PAGE-8: new and changed tiles go in at their place in the
 * reading order of `fresh`; the kept ones are already in that order among themselves, so none of them moves.
 */
function patchTiles(grid: HTMLElement, fresh: HTMLElement): void {
  grid.style.gridTemplateColumns = fresh.style.gridTemplateColumns;
  grid.style.setProperty('--columns', fresh.style.getPropertyValue('--columns'));
  const before = new Map(Array.from(grid.children).map((child) => [tileId(child), child]));
  const wanted = new Set<string>();
  const order: { node: Element; kept: boolean }[] = [];
  for (const next of Array.from(fresh.children)) {
    const id = tileId(next);
    wanted.add(id);
    const old = before.get(id);
    if (old && drawnFrom.get(old) === drawnFrom.get(next)) {
      if (next.classList.contains('dynamic')) patchTiles(old.querySelector(':scope > .grid') as HTMLElement, next.querySelector(':scope > .grid') as HTMLElement);
      order.push({ node: old, kept: true });
      continue;
    }
    if (old) old.remove();
    order.push({ node: next, kept: false });
  }
  for (const [id, old] of before) if (!wanted.has(id)) old.remove();
  // From the end: each new tile goes just before the one that follows it in the reading order.
  let following: Element | null = null;
  for (let i = order.length - 1; i >= 0; i--) {
    if (!order[i].kept) grid.insertBefore(order[i].node, following);
    following = order[i].node;
  }
}

/**
 * PAGE-2: redraws the board `current` (drawn by drawGrid) as `fresh` in place when both show the same layout and
 * sections; false (nothing changed) when they do not, and the caller replaces it.
 */
export function patchBoard(current: HTMLElement, fresh: HTMLElement): boolean {
  const [was, now] = [Array.from(current.children) as HTMLElement[], Array.from(fresh.children) as HTMLElement[]];
  if (current.dataset.layoutId !== fresh.dataset.layoutId || was.length !== now.length) return false;
  if (was.some((section, i) => section.tagName !== now[i].tagName || section.dataset.sectionId !== now[i].dataset.sectionId)) return false;
  was.forEach((section, i) => {
    section.className = now[i].className;
    const [summary, title] = [section.querySelector(':scope > summary'), now[i].querySelector(':scope > summary')];
    if (summary && title && summary.textContent !== title.textContent) summary.textContent = title.textContent;
    patchTiles(section.querySelector(':scope > .grid')!, now[i].querySelector(':scope > .grid')!);
  });
  return true;
}
