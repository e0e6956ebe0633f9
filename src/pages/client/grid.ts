/**
 * The board's grid for one breakpoint layout (PAGE-1): sections in order (category titles, collapsed ones folded),
 * items as tiles at their positions and sizes, dynamic sections as tiles holding their own grid.
 */
import { el } from './dom';

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

interface Names {
  apps: Map<string, { name: string; iconUrl: string }>;
  integrations: Map<string, string>;
  marks: Marks | null;
}

/** Icons are shown only when they come from this instance (PAGE-5: nothing is loaded from elsewhere). */
function ownIcon(url: string): boolean {
  if (url.startsWith('data:image/')) return true;
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

function place(element: HTMLElement, p: { xOffset: number; yOffset: number; width: number; height: number }): HTMLElement {
  element.style.gridColumn = `${p.xOffset + 1} / span ${p.width}`;
  element.style.gridRow = `${p.yOffset + 1} / span ${p.height}`;
  return element;
}

function tile(item: Item, position: Position, names: Names, mark: string): HTMLElement {
  const parts: HTMLElement[] = [el('span', { className: 'kind', text: item.kind })];
  if (item.kind === 'app' && typeof item.options.appId === 'string') {
    const app = names.apps.get(item.options.appId);
    const label = app?.name ?? 'app not readable';
    parts.push(
      app && ownIcon(app.iconUrl) ? el('img', { className: 'icon', src: app.iconUrl, alt: '' }) : el('span', { className: 'icon letter', text: label.slice(0, 1).toUpperCase() }),
      el('span', { className: 'app', text: label }),
    );
  }
  if (item.integrationIds.length > 0) {
    parts.push(el('span', { className: 'integrations', text: item.integrationIds.map((id) => names.integrations.get(id) ?? id).join(', ') }));
  }
  return place(el('div', { className: `tile${mark}`, dataset: { itemId: item.id }, title: `${item.kind} ${item.id}` }, parts), position);
}

function sectionGrid(board: Board, layout: Layout, sectionId: string, columns: number, names: Names): HTMLElement {
  const grid = el('div', { className: 'grid' });
  grid.style.gridTemplateColumns = `repeat(${columns}, minmax(0, 1fr))`;
  const marks = names.marks;
  for (const item of board.items) {
    const position = item.layouts.find((p) => p.layoutId === layout.id && p.sectionId === sectionId);
    if (!position) continue;
    const mark = marks?.removed.has(item.id) ? ' removed' : marks?.moved.has(item.id) ? ' moved' : '';
    grid.append(tile(item, position, names, mark));
  }
  for (const item of marks?.added ?? []) {
    const position = item.layouts.find((p) => p.layoutId === layout.id && p.sectionId === sectionId);
    if (position) grid.append(tile(item, position, names, ' added'));
  }
  for (const section of board.sections) {
    if (section.kind !== 'dynamic') continue;
    const position = section.layouts?.find((p) => p.layoutId === layout.id && p.parentSectionId === sectionId);
    if (!position) continue;
    const nested = el('div', { className: 'tile dynamic', dataset: { sectionId: section.id } }, [sectionGrid(board, layout, section.id, position.width, names)]);
    grid.append(place(nested, position));
  }
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
      const title = el('h2', { className: 'category', text: section.name ?? '' });
      return el('section', { className: section.collapsed ? 'section collapsed' : 'section', dataset: { sectionId: section.id } }, section.collapsed ? [title] : [title, body]);
    }),
  );
}
