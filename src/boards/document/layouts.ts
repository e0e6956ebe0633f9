import type { Knex } from 'knex';
import { newId } from '../../db/ids';
import { badRequest } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { widgetDefaultSize } from '../../widgets/registry';
import { assertBoardAccess } from '../access';
import { GridElement, gridKey, maxGridOffset, placeMissing, refitLayout } from './grid';
import { BoardState, readableItems, readableSections } from './read';
import { DocumentResult, freshRead, json, loadLockedState, lockBoardForWrite, positionColumns } from './save';
import type { BreakpointLayout, LayoutRow } from './types';
import { listIds } from './validate';
import { whereAmong } from '../../db/idList';

export interface LayoutPlan {
  insertLayouts: BreakpointLayout[];
  updateLayouts: BreakpointLayout[];
  deleteLayoutIds: string[];
  itemPositions: { item_id: string; layout_id: string; section_id: string; x_offset: number; y_offset: number; width: number; height: number }[];
  sectionPositions: {
    section_id: string;
    layout_id: string;
    parent_section_id: string;
    x_offset: number;
    y_offset: number;
    width: number;
    height: number;
  }[];
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
  const plan: LayoutPlan = { insertLayouts: [], updateLayouts: [], deleteLayoutIds: [], itemPositions: [], sectionPositions: [] };
  const addPositions = (layoutId: string, elements: GridElement[]) => {
    for (const e of elements) {
      const common = { layout_id: layoutId, x_offset: e.x, y_offset: e.y, width: e.width, height: e.height };
      if (e.type === 'item') plan.itemPositions.push({ item_id: e.id, section_id: e.parentId, ...common });
      else plan.sectionPositions.push({ section_id: e.id, parent_section_id: e.parentId, ...common });
    }
  };
  for (const layout of payload) {
    const existing = stored.get(layout.id);
    if (!existing) {
      const id = mintId();
      plan.insertLayouts.push({ ...layout, id });
      addPositions(id, regeneratePositions(state, cloneSource(state.layouts, layout.columnCount), layout.columnCount));
    } else {
      plan.updateLayouts.push(layout);
      if (existing.columnCount !== layout.columnCount) addPositions(layout.id, regeneratePositions(state, existing, layout.columnCount));
    }
  }
  plan.deleteLayoutIds = state.layouts.filter((layout) => !payloadIds.has(layout.id)).map((layout) => layout.id);
  return plan;
}

/** 400 when a refit would stack elements below the last row a document can hold (stacking into fewer columns can). */
function assertWithinGrid(plan: LayoutPlan): void {
  const beyond = [...plan.itemPositions, ...plan.sectionPositions].filter((position) => position.y_offset > maxGridOffset);
  if (beyond.length === 0) return;
  // New layouts carry ids minted here, so the client is told their names.
  const names = new Map([...plan.insertLayouts, ...plan.updateLayouts].map((layout) => [layout.id, layout.name]));
  const layoutNames = [...new Set(beyond.map((position) => names.get(position.layout_id) ?? position.layout_id))];
  throw badRequest(`Layout change would place elements below row ${maxGridOffset} in layout ${listIds(layoutNames)}`, { layoutNames });
}

/**
 * PATCH /api/boards/{id}/layouts: full replacement of the breakpoint layouts in one transaction (stricter than
 * LAYOUT-5). Bumps the revision only; the version is not touched (LAYOUT-8).
 */
export async function saveBoardLayouts(
  db: Knex,
  options: { boardId: string; principal: Principal; layouts: BreakpointLayout[]; ifMatch?: string },
): Promise<DocumentResult> {
  const { boardId, principal, layouts } = options;
  await assertBoardAccess(db, boardId, principal, 'modify');
  if (layouts.length === 0) throw badRequest('A board needs at least one layout');
  const seen = new Set<string>();
  const duplicate = layouts.map((layout) => layout.id).filter((id) => seen.has(id) || !seen.add(id));
  if (duplicate.length > 0) throw badRequest(`Duplicate layout ids in payload: ${listIds(duplicate)}`, { layoutIds: [...new Set(duplicate)] });

  return db.transaction(async (trx) => {
    await lockBoardForWrite(trx, boardId, { bumpVersion: false });
    const state = await loadLockedState(trx, boardId, principal, { ifMatch: options.ifMatch, versionBumped: false });
    const plan = planLayoutChange(state, layouts);
    assertWithinGrid(plan);
    await trx.raw(
      `INSERT INTO layouts (id, board_id, name, column_count, breakpoint)
       SELECT v.id, ?, v.name, v.column_count, v.breakpoint
       FROM jsonb_to_recordset(?::jsonb) AS v(id text, name text, column_count int, breakpoint int)`,
      [boardId, json(plan.insertLayouts.map((l) => ({ id: l.id, name: l.name, column_count: l.columnCount, breakpoint: l.breakpoint })))],
    );
    await trx.raw(
      `INSERT INTO item_layouts (item_id, layout_id, section_id, x_offset, y_offset, width, height)
       SELECT v.item_id, v.layout_id, v.section_id, v.x_offset, v.y_offset, v.width, v.height
       FROM jsonb_to_recordset(?::jsonb) AS v(item_id text, layout_id text, section_id text, ${positionColumns})
       ON CONFLICT (item_id, layout_id) DO UPDATE SET section_id = excluded.section_id, x_offset = excluded.x_offset,
         y_offset = excluded.y_offset, width = excluded.width, height = excluded.height`,
      [json(plan.itemPositions)],
    );
    await trx.raw(
      `INSERT INTO section_layouts (section_id, layout_id, parent_section_id, x_offset, y_offset, width, height)
       SELECT v.section_id, v.layout_id, v.parent_section_id, v.x_offset, v.y_offset, v.width, v.height
       FROM jsonb_to_recordset(?::jsonb) AS v(section_id text, layout_id text, parent_section_id text, ${positionColumns})
       ON CONFLICT (section_id, layout_id) DO UPDATE SET parent_section_id = excluded.parent_section_id, x_offset = excluded.x_offset,
         y_offset = excluded.y_offset, width = excluded.width, height = excluded.height`,
      [json(plan.sectionPositions)],
    );
    await trx.raw(
      `UPDATE layouts AS l SET name = v.name, column_count = v.column_count, breakpoint = v.breakpoint
       FROM jsonb_to_recordset(?::jsonb) AS v(id text, name text, column_count int, breakpoint int)
       WHERE l.id = v.id AND l.board_id = ?`,
      [json(plan.updateLayouts.map((l) => ({ id: l.id, name: l.name, column_count: l.columnCount, breakpoint: l.breakpoint }))), boardId],
    );
    await trx('layouts').where({ boardId }).modify(whereAmong, 'id', plan.deleteLayoutIds).del();
    return freshRead(trx, boardId, principal, state);
  });
}
