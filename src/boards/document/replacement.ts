/**
 * The writes that turn a board's stored rows into a target set of rows exactly: layouts with their ids, sections
 * (kind included), items, every position and binding, and board columns. Used where a whole earlier or imported
 * state is put back (restore, import with replace), which the save rules (PUT-5, PUT-6) do not govern. No I/O.
 */
import { differingRows, rowRules } from './changes';
import { sameJson, emptyWrites, writesAnything, type ContentWrites, type SectionWrite } from './contentPlan';
import type { LayoutPlan } from './layoutPlan';
import type { BoardState } from './model';
import { stateAfterContentWrites, stateAfterLayoutPlan } from './stateAfter';
import type { SectionKind, SectionRow } from './types';

export interface Replacement {
  layouts: LayoutPlan;
  content: ContentWrites;
  /** Board columns whose value differs in the target. */
  columns: Record<string, unknown>;
}

const sectionWrite = (s: SectionRow): SectionWrite => ({
  id: s.id,
  kind: s.kind as SectionKind,
  xOffset: s.xOffset,
  yOffset: s.yOffset,
  name: s.name,
  options: s.options as SectionWrite['options'],
});

/** Rows of `target` not in `current` (by key) are inserted, rows in both that differ updated, the rest deleted. */
function split<K extends keyof typeof rowRules>(current: BoardState, target: BoardState, table: K) {
  type Row = BoardState[K][number];
  const { key, same } = rowRules[table] as unknown as { key: (row: Row) => string; same: (a: Row, b: Row) => boolean };
  const { put, dropped } = differingRows<Row>(current[table] as Row[], target[table] as Row[], key, same);
  const existing = new Set((current[table] as Row[]).map(key));
  return { insert: put.filter((row) => !existing.has(key(row))), update: put.filter((row) => existing.has(key(row))), delete: dropped };
}

/**
 * The writes from `current` to `target`, and the columns of `target.board` named in `columns` that differ. Positions
 * and bindings that go with a deleted element or layout are left to the database's cascades.
 */
export function replacementFor(current: BoardState, target: BoardState, columns: readonly string[]): Replacement {
  const layouts = split(current, target, 'layouts');
  const sections = split(current, target, 'sections');
  const items = split(current, target, 'items');
  const sectionPositions = split(current, target, 'sectionLayouts');
  const itemPositions = split(current, target, 'itemLayouts');
  const bindings = split(current, target, 'bindings');

  const goneLayouts = new Set(layouts.delete.map((l) => l.id));
  const goneSections = new Set(sections.delete.map((s) => s.id));
  const goneItems = new Set(items.delete.map((i) => i.id));
  const content = emptyWrites();
  content.sections = { insert: sections.insert.map(sectionWrite), update: sections.update.map(sectionWrite), delete: [...goneSections] };
  content.items = {
    insert: items.insert.map((i) => ({ id: i.id, kind: i.kind, options: i.options, advancedOptions: i.advancedOptions as any })),
    update: items.update.map((i) => ({ id: i.id, kind: i.kind, options: i.options, advancedOptions: i.advancedOptions as any })),
    delete: [...goneItems],
  };
  content.sectionPositions = {
    insert: sectionPositions.insert.map((p) => ({ ...p, parentSectionId: p.parentSectionId as string })),
    update: sectionPositions.update.map((p) => ({ ...p, parentSectionId: p.parentSectionId as string })),
    delete: sectionPositions.delete
      .filter((p) => !goneSections.has(p.sectionId) && !goneLayouts.has(p.layoutId) && !(p.parentSectionId !== null && goneSections.has(p.parentSectionId)))
      .map((p) => ({ sectionId: p.sectionId, layoutId: p.layoutId })),
  };
  content.itemPositions = {
    insert: itemPositions.insert,
    update: itemPositions.update,
    delete: itemPositions.delete
      .filter((p) => !goneItems.has(p.itemId) && !goneSections.has(p.sectionId) && !goneLayouts.has(p.layoutId))
      .map((p) => ({ itemId: p.itemId, layoutId: p.layoutId })),
  };
  content.bindings = { insert: bindings.insert, delete: bindings.delete.filter((b) => !goneItems.has(b.itemId)) };

  const changedColumns: Record<string, unknown> = {};
  for (const column of columns) if (!sameJson(current.board[column], target.board[column])) changedColumns[column] = target.board[column];
  return {
    layouts: { insertLayouts: layouts.insert, updateLayouts: layouts.update, deleteLayoutIds: [...goneLayouts], itemPositions: [], sectionPositions: [] },
    content,
    columns: changedColumns,
  };
}

/** Whether the replacement writes anything at all: a board column, a layout, or any content row. */
export function replacementWritesAnything(replacement: Replacement): boolean {
  const { insertLayouts, updateLayouts, deleteLayoutIds } = replacement.layouts;
  return Object.keys(replacement.columns).length > 0 || insertLayouts.length + updateLayouts.length + deleteLayoutIds.length > 0 || writesAnything(replacement.content);
}

/** The state after a replacement is applied (store.applyReplacement), as stateAfter.ts computes the other writes. */
export function stateAfterReplacement(current: BoardState, replacement: Replacement): BoardState {
  const after = stateAfterContentWrites(stateAfterLayoutPlan(current, replacement.layouts), replacement.content);
  return { ...after, board: { ...after.board, ...replacement.columns } };
}
