/**
 * A board as history keeps it (HIST-3): the rows of its content (layouts, sections, items, positions, bindings) and
 * its fields (name, visibility, settings, version), without what belongs to a caller (collapsed sections, own
 * permission rows) or to the instance (revision, timestamps). History stores, per entry, the delta that turns the
 * board after the entry into the board before it, and now and then a whole snapshot. No I/O.
 */
import { boardFields, differingRows, rowRules } from '../document/changes';
import { boardSettingsColumns, defaultBoardSettings } from '../settings';
import { sameJson } from '../document/contentPlan';
import type { BoardState } from '../document/model';
import { byBytes, sortLayouts, sortSections } from '../document/stateAfter';
import type { BindingRow, ItemLayoutRow, SectionLayoutRow } from '../document/types';

export interface BoardSnapshot {
  board: Record<string, unknown>;
  layouts: { id: string; name: string; columnCount: number; breakpoint: number }[];
  sections: { id: string; kind: string; xOffset: number | null; yOffset: number | null; name: string | null; options: unknown }[];
  sectionLayouts: SectionLayoutRow[];
  items: { id: string; kind: string; options: unknown; advancedOptions: unknown }[];
  itemLayouts: ItemLayoutRow[];
  bindings: BindingRow[];
}

type Table = Exclude<keyof BoardSnapshot, 'board'>;
const tables: Table[] = ['layouts', 'sections', 'sectionLayouts', 'items', 'itemLayouts', 'bindings'];


/** The fields of the board a snapshot keeps: the changeable ones and the version. */
const snapshotFields = [...boardFields, 'version'] as const;

export function snapshotOf(state: BoardState): BoardSnapshot {
  const board: Record<string, unknown> = {};
  for (const field of snapshotFields) board[field] = state.board[field];
  const rows = (table: Table) => (state[table] as object[]).map(projection[table]) as any;
  return {
    board,
    layouts: rows('layouts'),
    sections: rows('sections'),
    sectionLayouts: rows('sectionLayouts'),
    items: rows('items'),
    itemLayouts: rows('itemLayouts'),
    bindings: rows('bindings'),
  };
}

/**
 * The board state of a snapshot, in loadBoardState's order, with what belongs to the caller taken from `context`
 * (the board as it stands now): creator, own permission rows, collapsed sections that exist in the snapshot.
 */
function settingsMissingFrom(board: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(boardSettingsColumns.filter((column) => !(column in board)).map((column) => [column, defaultBoardSettings[column]]));
}

export function stateFromSnapshot(snapshot: BoardSnapshot, context: BoardState): BoardState {
  const boardId = context.board.id;
  const sectionIds = new Set(snapshot.sections.map((s) => s.id));
  return {
    ...context,
    // THEME-1: a snapshot taken before a setting existed (migration 0019) had it at its default, not at today's value.
    board: { ...context.board, ...settingsMissingFrom(snapshot.board), ...snapshot.board },
    layouts: sortLayouts(snapshot.layouts.map((row) => ({ ...row, boardId }))),
    sections: sortSections(snapshot.sections.map((row) => ({ ...row, boardId, options: row.options as Record<string, unknown> | null }))),
    sectionLayouts: snapshot.sectionLayouts.map((row) => ({ ...row })),
    items: snapshot.items
      .map((row) => ({ ...row, boardId, options: row.options as Record<string, unknown>, advancedOptions: row.advancedOptions as Record<string, unknown> }))
      .sort((a, b) => byBytes(a.id, b.id)),
    itemLayouts: snapshot.itemLayouts.map((row) => ({ ...row })),
    bindings: snapshot.bindings.map((row) => ({ ...row })).sort((a, b) => byBytes(a.integrationId, b.integrationId) || byBytes(a.itemId, b.itemId)),
    collapsedSectionIds: new Set([...context.collapsedSectionIds].filter((id) => sectionIds.has(id))),
  };
}

/** Rows to put (insert or replace, by key) and keys to drop, per table; board fields to set. */
export interface SnapshotDelta {
  board?: Record<string, unknown>;
  put?: Partial<Record<Table, object[]>>;
  drop?: Partial<Record<Table, string[]>>;
}

/** Each table's row as a snapshot keeps it: state rows without their board id. */
const projection: Record<Table, (row: any) => object> = {
  layouts: ({ id, name, columnCount, breakpoint }) => ({ id, name, columnCount, breakpoint }),
  sections: ({ id, kind, xOffset, yOffset, name, options }) => ({ id, kind, xOffset, yOffset, name, options }),
  items: ({ id, kind, options, advancedOptions }) => ({ id, kind, options, advancedOptions }),
  sectionLayouts: (row) => row,
  itemLayouts: (row) => row,
  bindings: ({ itemId, integrationId }) => ({ itemId, integrationId }),
};

/**
 * The delta that turns the board `from` into the board `to` (states of the same board), table by table as
 * compareStates compares them (changes.ts). Empty (`{}`) when the two hold the same board.
 */
export function diffStates(from: BoardState, to: BoardState): SnapshotDelta {
  const delta: SnapshotDelta = {};
  for (const field of snapshotFields) {
    if (!sameJson(from.board[field], to.board[field])) (delta.board ??= {})[field] = to.board[field];
  }
  for (const table of tables) {
    const { key, same } = rowRules[table] as { key: (row: object) => string; same: (a: object, b: object) => boolean };
    const { put, dropped } = differingRows(from[table] as object[], to[table] as object[], key, same);
    if (put.length > 0) (delta.put ??= {})[table] = put.map(projection[table]);
    if (dropped.length > 0) (delta.drop ??= {})[table] = dropped.map(key);
  }
  return delta;
}

export function isEmptyDelta(delta: SnapshotDelta): boolean {
  return delta.board === undefined && delta.put === undefined && delta.drop === undefined;
}

/**
 * A snapshot taken back (or forward) through a run of deltas: the rows are held by key, so each delta costs what it
 * holds, not what the board holds.
 */
export class SnapshotBuilder {
  private readonly board: Record<string, unknown>;
  private readonly rows = new Map<Table, Map<string, object>>();

  constructor(snapshot: BoardSnapshot) {
    this.board = { ...snapshot.board };
    for (const table of tables) {
      const key = rowRules[table].key as (row: object) => string;
      this.rows.set(table, new Map((snapshot[table] as object[]).map((row) => [key(row), row])));
    }
  }

  apply(delta: SnapshotDelta): this {
    Object.assign(this.board, delta.board);
    for (const table of tables) {
      const rows = this.rows.get(table)!;
      for (const k of delta.drop?.[table] ?? []) rows.delete(k);
      const key = rowRules[table].key as (row: object) => string;
      for (const row of delta.put?.[table] ?? []) rows.set(key(row), row);
    }
    return this;
  }

  build(): BoardSnapshot {
    const snapshot = { board: { ...this.board } } as BoardSnapshot;
    for (const table of tables) (snapshot as any)[table] = [...this.rows.get(table)!.values()];
    return snapshot;
  }
}
