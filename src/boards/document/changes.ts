/**
 * What differs between two states of a board (PLAN-2, HIST-5): elements added, removed and updated, and the board
 * fields changed. An item is updated when its kind, options, advanced options, positions or bindings differ; a
 * section when its stored fields or its positions differ; a layout when its name, column count or breakpoint
 * differ. No I/O: the plan route, history summaries and diffs all use it.
 */
import { boardSettingsColumns } from '../settings';
import { sameJson } from './contentPlan';
import type { BoardState } from './model';
import type { BindingRow, ItemLayoutRow, ItemRow, LayoutRow, SectionLayoutRow, SectionRow } from './types';

export interface ElementChanges {
  added: string[];
  removed: string[];
  updated: string[];
}

export interface FieldChange {
  from: unknown;
  to: unknown;
}

export interface BoardChanges {
  sections: ElementChanges;
  items: ElementChanges;
  layouts: ElementChanges;
  /** Board fields that changed (name, isPublic, managedBy and the settings; `version` is not a change of its own). */
  board: Record<string, FieldChange>;
}

/** The board fields a change of the board is about: what history keeps besides the version. */
export const boardFields = ['name', 'isPublic', 'managedBy', ...boardSettingsColumns] as const;
export type BoardField = (typeof boardFields)[number];

/**
 * The rows of `b` that are new or differ from the row of `a` under the same key (`put`), and the rows of `a` whose
 * key `b` lacks (`dropped`). Rows that are the same object in both are not looked into: a write keeps the rows it
 * does not touch as the same objects in the same order (stateAfter.ts), so the runs of identical rows at both ends
 * are skipped, and when every remaining row keeps its index (an update replaces a row in place) no map is built.
 * A small change of a large board costs little.
 */
export function differingRows<T>(
  a: readonly T[],
  b: readonly T[],
  key: (row: T) => string,
  same: (x: T, y: T) => boolean,
): { put: T[]; dropped: T[]; added: Set<T> } {
  // `added`: the rows of `b` whose key `a` lacks (all of them are in `put` too), in `b`'s order.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const put: T[] = [];
  if (endA - start === endB - start) {
    let inPlace = true;
    for (let i = start; i < endA && inPlace; i++) inPlace = a[i] === b[i] || key(a[i]) === key(b[i]);
    if (inPlace) {
      for (let i = start; i < endA; i++) if (a[i] !== b[i] && !same(a[i], b[i])) put.push(b[i]);
      return { put, dropped: [], added: new Set() };
    }
  }
  // Rows may have moved anywhere within the middle runs; identical rows outside them are in both.
  const middleA = a.slice(start, endA);
  const before = new Map(middleA.map((row) => [key(row), row]));
  const after = new Set<string>();
  const added = new Set<T>();
  for (let i = start; i < endB; i++) {
    const row = b[i];
    const k = key(row);
    after.add(k);
    const old = before.get(k);
    if (old === undefined) added.add(row);
    if (old !== row && (old === undefined || !same(old, row))) put.push(row);
  }
  return { put, dropped: middleA.filter((row) => !after.has(key(row))), added };
}

type Rect = { xOffset: number; yOffset: number; width: number; height: number };
const sameRect = (a: Rect, b: Rect) => a.xOffset === b.xOffset && a.yOffset === b.yOffset && a.width === b.width && a.height === b.height;

/** How the rows of each table of a board are keyed and compared (also what history's deltas are made of). */
export const rowRules = {
  layouts: { key: (row: LayoutRow) => row.id, same: (a: LayoutRow, b: LayoutRow) => a.name === b.name && a.columnCount === b.columnCount && a.breakpoint === b.breakpoint },
  sections: {
    key: (row: SectionRow) => row.id,
    same: (a: SectionRow, b: SectionRow) => a.kind === b.kind && a.xOffset === b.xOffset && a.yOffset === b.yOffset && a.name === b.name && sameJson(a.options, b.options),
  },
  items: {
    key: (row: ItemRow) => row.id,
    same: (a: ItemRow, b: ItemRow) => a.kind === b.kind && sameJson(a.options, b.options) && sameJson(a.advancedOptions, b.advancedOptions),
  },
  sectionLayouts: {
    key: (row: SectionLayoutRow) => `${row.sectionId}\n${row.layoutId}`,
    same: (a: SectionLayoutRow, b: SectionLayoutRow) => a.parentSectionId === b.parentSectionId && sameRect(a, b),
  },
  itemLayouts: { key: (row: ItemLayoutRow) => `${row.itemId}\n${row.layoutId}`, same: (a: ItemLayoutRow, b: ItemLayoutRow) => a.sectionId === b.sectionId && sameRect(a, b) },
  bindings: { key: (row: BindingRow) => `${row.itemId}\n${row.integrationId}`, same: () => true },
};

/** Added, removed and updated elements: rows that differ, and elements whose owned rows (positions, bindings) differ. */
function elementChanges<T extends { id: string }>(after: readonly T[], rows: { put: T[]; dropped: T[]; added: Set<T> }, touched: ReadonlySet<string>): ElementChanges {
  const changed = new Set(rows.put.filter((row) => !rows.added.has(row)).map((row) => row.id));
  return {
    added: [...rows.added].map((row) => row.id),
    removed: rows.dropped.map((row) => row.id),
    updated: changed.size + touched.size === 0 ? [] : after.filter((row) => !rows.added.has(row) && (changed.has(row.id) || touched.has(row.id))).map((row) => row.id),
  };
}

/** The owners (items, sections) of rows that differ between two lists. */
function owners<T>(rows: { put: T[]; dropped: T[] }, owner: (row: T) => string): Set<string> {
  return new Set([...rows.put, ...rows.dropped].map(owner));
}

export function compareStates(before: BoardState, after: BoardState): BoardChanges {
  const board: Record<string, FieldChange> = {};
  for (const field of boardFields) {
    if (!sameJson(before.board[field], after.board[field])) board[field] = { from: before.board[field], to: after.board[field] };
  }
  const diff = <K extends keyof typeof rowRules>(table: K) =>
    differingRows<any>(before[table] as any[], after[table] as any[], rowRules[table].key as any, rowRules[table].same as any);
  const touchedItems = new Set([...owners(diff('itemLayouts'), (p) => p.itemId), ...owners(diff('bindings'), (b) => b.itemId)]);
  const touchedSections = owners(diff('sectionLayouts'), (p) => p.sectionId);
  return {
    sections: elementChanges(after.sections, diff('sections'), touchedSections),
    items: elementChanges(after.items, diff('items'), touchedItems),
    layouts: elementChanges(after.layouts, diff('layouts'), new Set()),
    board,
  };
}

/** Whether the comparison found nothing. */
export function noChanges(changes: BoardChanges): boolean {
  const none = (c: ElementChanges) => c.added.length + c.removed.length + c.updated.length === 0;
  return none(changes.sections) && none(changes.items) && none(changes.layouts) && Object.keys(changes.board).length === 0;
}
