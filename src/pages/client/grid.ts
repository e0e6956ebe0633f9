/**
 * The board's grid for one breakpoint layout (PAGE-1): sections in order (category titles, collapsed ones folded),
 * items as tiles at their positions and sizes, dynamic sections as tiles holding their own grid.
 */
import { el } from './dom';
import { rememberSection, sectionOpen } from './layout';
import { renderWidget, widgetLabel, type WidgetContext } from './widgets';

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

interface Names extends WidgetContext {
  integrations: Map<string, string>;
  marks: Marks | null;
}

function place(element: HTMLElement, p: { xOffset: number; yOffset: number; width: number; height: number }): HTMLElement {
  element.style.gridColumn = `${p.xOffset + 1} / span ${p.width}`;
  element.style.gridRow = `${p.yOffset + 1} / span ${p.height}`;
  return element;
}

function tile(item: Item, position: Position, names: Names, mark: string): HTMLElement {
  // VIEW-1: the widget's own renderer (src/pages/client/widgets/), a labelled placeholder for kinds not drawn.
  const parts = renderWidget(item, names);
  if (item.integrationIds.length > 0) {
    parts.push(el('span', { className: 'integrations', text: item.integrationIds.map((id) => names.integrations.get(id) ?? id).join(', ') }));
  }
  return place(el('div', { className: `tile widget-${item.kind}${mark}`, dataset: { itemId: item.id, kind: item.kind }, ariaLabel: widgetLabel(item.kind) }, parts), position);
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
