/**
 * The layout plan of PATCH /api/boards/{id}/layouts (LAYOUT-1..4, LAYOUT-6, LAYOUT-7, GRID-2): which layouts are
 * created (with server ids), changed and deleted, and every position regenerated. No I/O.
 */
import { badRequest } from '../../core/errors';
import { newId } from '../../db/ids';
import { widgetDefaultSize } from '../../widgets/registry';
import { GridElement, gridKey, maxGridOffset, placeMissing, refitLayout } from './grid';
import { BoardState, readableItems, readableSections } from './model';
import type { BreakpointLayout, ItemLayoutRow, LayoutRow, SectionLayoutRow } from './types';
import { listIds } from './validate';

export interface LayoutPlan {
  insertLayouts: BreakpointLayout[];
  updateLayouts: BreakpointLayout[];
  deleteLayoutIds: string[];
  /** Positions of the new layouts and of the layouts whose column count changed: inserted or replacing the stored ones. */
  itemPositions: ItemLayoutRow[];
  sectionPositions: (SectionLayoutRow & { parentSectionId: string })[];
  /** For each new layout (by its server id), the layout its positions were cloned from (LAYOUT-3). */
  clonedFrom?: Record<string, string | null>;
}

/** Root (non-dynamic) sections ordered by yOffset: where the grid algorithm starts and where orphans are placed. */
function rootSectionIds(state: BoardState): string[] {
  return readableSections(state)
    .filter((section) => section.kind !== 'dynamic')
    .sort((a, b) => (a.yOffset ?? 0) - (b.yOffset ?? 0) || a.id.localeCompare(b.id))
    .map((section) => section.id);
}

/** The items and dynamic sections positioned in one layout, as grid elements. */
function elementsOf(state: BoardState, layoutId: string): GridElement[] {
  const items = new Set(readableItems(state).map((item) => item.id));
  const dynamic = new Set(readableSections(state).filter((s) => s.kind === 'dynamic').map((s) => s.id));
  return [
    ...state.itemLayouts
      .filter((p) => p.layoutId === layoutId && items.has(p.itemId))
      .map((p): GridElement => ({ type: 'item', id: p.itemId, parentId: p.sectionId, x: p.xOffset, y: p.yOffset, width: p.width, height: p.height })),
    ...state.sectionLayouts
      .filter((p) => p.layoutId === layoutId && dynamic.has(p.sectionId) && p.parentSectionId !== null)
      .map(
        (p): GridElement => ({ type: 'section', id: p.sectionId, parentId: p.parentSectionId!, x: p.xOffset, y: p.yOffset, width: p.width, height: p.height }),
      ),
  ];
}

/**
 * Positions of every readable item and dynamic section for a layout of `columns` columns, refitted from
 * `source` (LAYOUT-3, LAYOUT-4, GRID-2). Elements without a position in the source (or whose parent has none) are
 * placed at the first free cell of a root section: the section of their position in another layout when that
 * is a root section, else the first root section; sized like that other position, else the widget default.
 */
export function regeneratePositions(state: BoardState, source: LayoutRow | undefined, columns: number): GridElement[] {
  const roots = rootSectionIds(state);
  const rootSet = new Set(roots);
  const refitted = source ? refitLayout(elementsOf(state, source.id), roots, source.columnCount, columns) : [];
  const placed = new Set(refitted.map(gridKey));
  const layoutOrder = new Map(state.layouts.map((layout, index) => [layout.id, index]));
  const firstOther = <T extends { layoutId: string }>(rows: T[]) =>
    [...rows].sort((a, b) => (layoutOrder.get(a.layoutId) ?? 0) - (layoutOrder.get(b.layoutId) ?? 0))[0];
  const missing: GridElement[] = [];
  if (roots.length > 0) {
    for (const item of readableItems(state)) {
      if (placed.has(gridKey({ type: 'item', id: item.id }))) continue;
      const other = firstOther(state.itemLayouts.filter((p) => p.itemId === item.id));
      const size = other ? { width: other.width, height: other.height } : widgetDefaultSize(item.kind);
      const parentId = other && rootSet.has(other.sectionId) ? other.sectionId : roots[0];
      missing.push({ type: 'item', id: item.id, parentId, x: 0, y: 0, ...size });
    }
    for (const section of readableSections(state)) {
      if (section.kind !== 'dynamic' || placed.has(gridKey({ type: 'section', id: section.id }))) continue;
      const other = firstOther(state.sectionLayouts.filter((p) => p.sectionId === section.id && p.parentSectionId !== null));
      const size = other ? { width: other.width, height: other.height } : { width: 1, height: 1 };
      const parentId = other && rootSet.has(other.parentSectionId!) ? other.parentSectionId! : roots[0];
      missing.push({ type: 'section', id: section.id, parentId, x: 0, y: 0, ...size });
    }
  }
  return [...refitted, ...placeMissing(refitted, missing, columns)];
}

/** Clone source for a new layout (LAYOUT-3): the smallest columnCount >= the new one, else the largest. */
export function cloneSource(layouts: readonly LayoutRow[], columns: number): LayoutRow | undefined {
  const sorted = [...layouts].sort((a, b) => a.columnCount - b.columnCount);
  return sorted.find((layout) => layout.columnCount >= columns) ?? sorted[sorted.length - 1];
}

/** LAYOUT-1..4, computed against the board as stored before the change. */
export function planLayoutChange(state: BoardState, payload: readonly BreakpointLayout[], mintId: () => string = newId): LayoutPlan {
  const stored = new Map(state.layouts.map((layout) => [layout.id, layout]));
  const payloadIds = new Set(payload.map((layout) => layout.id));
  const plan: LayoutPlan = { insertLayouts: [], updateLayouts: [], deleteLayoutIds: [], itemPositions: [], sectionPositions: [], clonedFrom: {} };
  const addPositions = (layoutId: string, elements: GridElement[]) => {
    for (const e of elements) {
      const rect = { layoutId, xOffset: e.x, yOffset: e.y, width: e.width, height: e.height };
      if (e.type === 'item') plan.itemPositions.push({ itemId: e.id, sectionId: e.parentId, ...rect });
      else plan.sectionPositions.push({ sectionId: e.id, parentSectionId: e.parentId, ...rect });
    }
  };
  for (const layout of payload) {
    const existing = stored.get(layout.id);
    if (!existing) {
      const id = mintId();
      const source = cloneSource(state.layouts, layout.columnCount);
      plan.insertLayouts.push({ ...layout, id });
      plan.clonedFrom![id] = source?.id ?? null;
      addPositions(id, regeneratePositions(state, source, layout.columnCount));
    } else {
      plan.updateLayouts.push(layout);
      if (existing.columnCount !== layout.columnCount) addPositions(layout.id, regeneratePositions(state, existing, layout.columnCount));
    }
  }
  plan.deleteLayoutIds = state.layouts.filter((layout) => !payloadIds.has(layout.id)).map((layout) => layout.id);
  return plan;
}

/** LAYOUT-7: 400 when a refit would stack elements below the last row a document can hold (stacking into fewer columns can). */
export function assertWithinGrid(plan: LayoutPlan): void {
  const beyond = [...plan.itemPositions, ...plan.sectionPositions].filter((position) => position.yOffset > maxGridOffset);
  if (beyond.length === 0) return;
  // New layouts carry ids minted here, so the client is told their names.
  const names = new Map([...plan.insertLayouts, ...plan.updateLayouts].map((layout) => [layout.id, layout.name]));
  const layoutNames = [...new Set(beyond.map((position) => names.get(position.layoutId) ?? position.layoutId))];
  throw badRequest(`Layout change would place elements below row ${maxGridOffset} in layout ${listIds(layoutNames)}`, { layoutNames });
}

/** Checks of a layouts payload that need no database: 400 for an empty list (LAYOUT-7) or repeated ids. */
export function validateLayouts(layouts: readonly BreakpointLayout[]): void {
  if (layouts.length === 0) throw badRequest('A board needs at least one layout');
  const seen = new Set<string>();
  const duplicate = layouts.map((layout) => layout.id).filter((id) => seen.has(id) || !seen.add(id));
  if (duplicate.length > 0) throw badRequest(`Duplicate layout ids in payload: ${listIds(duplicate)}`, { layoutIds: [...new Set(duplicate)] });
}
