/**
 * The board as it stands after a plan is applied, computed without the database: the same rows, in the same order,
 * rows the plan does not touch kept as the same objects (so comparisons of before and after skip them),
 * with the same JSON values as loadBoardState would read back (the foreign keys' cascades included). The plan
 * route reports from it, a save measures and answers from it, and history records the difference it makes; a test
 * compares it with the database after random saves (test/boards-document/stateAfter.test.ts).
 */
import type { ContentWrites } from './contentPlan';
import type { LayoutPlan } from './layoutPlan';
import { keepItemRowsAfter, type BoardState } from './model';
import type { ItemLayoutRow, LayoutRow, SectionLayoutRow, SectionRow } from './types';

/**
 * Byte order of UTF-8, which is what COLLATE "C" sorts by, without encoding: UTF-8 sorts like code points, and
 * UTF-16 code units sort like code points except that surrogates (U+D800..DFFF, the halves of code points above
 * U+FFFF) come before U+E000..FFFF; the first differing units are moved into code point order.
 */
export function byBytes(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x >= 0xd800 && y >= 0xd800 ? codePointRank(x) - codePointRank(y) : x - y;
  }
  return a.length - b.length;
}

/** A code unit from U+D800 up, ranked as the code points it starts sort: surrogates after U+E000..FFFF. */
const codePointRank = (unit: number) => (unit < 0xe000 ? unit + 0x2000 : unit - 0x800);

/**
 * A JSON value as PostgreSQL's jsonb gives it back: object keys sorted by their UTF-8 length, then bytewise, a
 * repeated key keeping its last value (JSON.parse already did that).
 */
export function asJsonb<T>(value: T): T {
  if (Array.isArray(value)) return value.map(asJsonb) as T;
  if (typeof value !== 'object' || value === null) return value;
  // Each key's UTF-8 length measured once (not once per comparison).
  const keys = Object.keys(value).map((key) => ({ key, bytes: Buffer.byteLength(key) }));
  if (keys.length > 1) keys.sort((a, b) => a.bytes - b.bytes || byBytes(a.key, b.key));
  const out: Record<string, unknown> = {};
  for (const { key } of keys) {
    const entry = asJsonb((value as Record<string, unknown>)[key]);
    // defineProperty, so that a key named __proto__ stays an own property as JSON.parse makes it.
    if (key === '__proto__') Object.defineProperty(out, key, { value: entry, enumerable: true, writable: true, configurable: true });
    else out[key] = entry;
  }
  return out as T;
}

export const sortSections = (sections: SectionRow[]) =>
  sections.sort((a, b) => {
    if (a.yOffset !== b.yOffset) {
      if (a.yOffset === null) return 1;
      if (b.yOffset === null) return -1;
      return a.yOffset - b.yOffset;
    }
    return byBytes(a.id, b.id);
  });

export const sortLayouts = (layouts: LayoutRow[]) => layouts.sort((a, b) => a.breakpoint - b.breakpoint || byBytes(a.id, b.id));
const pair = (a: string, b: string) => `${a}\n${b}`;

/**
 * The rows with those that `updates` holds under their key replaced; the same array when there are none. The key (a
 * string built per row) is made only for rows of an owner (an item, a section) that has an update: a granular write
 * changes one element's positions, and keying all of a large board's positions for it was most of its cost.
 */
const replaceRows = <T>(rows: T[], updates: ReadonlyMap<string, T>, owner: (row: T) => string, key: (row: T) => string): T[] => {
  if (updates.size === 0) return rows;
  const owners = new Set(Array.from(updates.values(), owner));
  return rows.map((row) => (owners.has(owner(row)) ? (updates.get(key(row)) ?? row) : row));
};

/** `rows` without those `keep` refuses; the same array when `anyRemoved` says nothing can be. */
const withoutRemoved = <T>(rows: T[], anyRemoved: boolean, keep: (row: T) => boolean): T[] => (anyRemoved ? rows.filter(keep) : rows);

/** The state after applyContentWrites (store.ts) of `writes` on `state`, rows in loadBoardState's order. */
export function stateAfterContentWrites(state: BoardState, writes: ContentWrites): BoardState {
  const boardId = state.board.id;
  const deletedSections = new Set(writes.sections.delete);
  const deletedItems = new Set(writes.items.delete);

  const sectionUpdates = new Map(writes.sections.update.map((s) => [s.id, s]));
  const sections: SectionRow[] = state.sections
    .filter((s) => !deletedSections.has(s.id))
    .map((s) => {
      const update = sectionUpdates.get(s.id);
      return update ? { ...s, kind: update.kind, xOffset: update.xOffset, yOffset: update.yOffset, name: update.name, options: asJsonb(update.options) } : s;
    });
  for (const s of writes.sections.insert) {
    sections.push({ id: s.id, boardId, kind: s.kind, xOffset: s.xOffset, yOffset: s.yOffset, name: s.name, options: asJsonb(s.options) });
  }
  if (writes.sections.insert.length + writes.sections.update.length > 0) sortSections(sections);

  const sectionPositionUpdates = new Map(writes.sectionPositions.update.map((p) => [pair(p.sectionId, p.layoutId), p]));
  const deletedSectionPositions = new Set(writes.sectionPositions.delete.map((p) => pair(p.sectionId, p.layoutId)));
  const sectionLayouts: SectionLayoutRow[] = withoutRemoved(
    replaceRows(state.sectionLayouts, sectionPositionUpdates, (p) => p.sectionId, (p) => pair(p.sectionId, p.layoutId)).concat(writes.sectionPositions.insert),
    deletedSectionPositions.size + deletedSections.size > 0,
    (p) =>
      (deletedSectionPositions.size === 0 || !deletedSectionPositions.has(pair(p.sectionId, p.layoutId))) &&
      !deletedSections.has(p.sectionId) &&
      !(p.parentSectionId !== null && deletedSections.has(p.parentSectionId)),
  );

  const itemUpdates = new Map(writes.items.update.map((i) => [i.id, i]));
  const items = state.items
    .filter((i) => !deletedItems.has(i.id))
    .map((i) => {
      const update = itemUpdates.get(i.id);
      return update ? { ...i, kind: update.kind, options: asJsonb(update.options), advancedOptions: asJsonb(update.advancedOptions) } : i;
    });
  for (const i of writes.items.insert) {
    items.push({ id: i.id, boardId, kind: i.kind, options: asJsonb(i.options), advancedOptions: asJsonb(i.advancedOptions) as Record<string, unknown> });
  }
  // Kept rows keep their order (updates do not change ids): only inserted rows need sorting in.
  if (writes.items.insert.length > 0) items.sort((a, b) => byBytes(a.id, b.id));

  const itemPositionUpdates = new Map(writes.itemPositions.update.map((p) => [pair(p.itemId, p.layoutId), p]));
  const deletedItemPositions = new Set(writes.itemPositions.delete.map((p) => pair(p.itemId, p.layoutId)));
  const itemLayouts: ItemLayoutRow[] = withoutRemoved(
    replaceRows(state.itemLayouts, itemPositionUpdates, (p) => p.itemId, (p) => pair(p.itemId, p.layoutId)).concat(writes.itemPositions.insert),
    deletedItemPositions.size + deletedItems.size + deletedSections.size > 0,
    (p) =>
      (deletedItemPositions.size === 0 || !deletedItemPositions.has(pair(p.itemId, p.layoutId))) &&
      !deletedItems.has(p.itemId) &&
      !deletedSections.has(p.sectionId),
  );

  const removedBindings = new Set(writes.bindings.delete.map((b) => pair(b.itemId, b.integrationId)));
  const bindings = state.bindings
    .filter((b) => (removedBindings.size === 0 || !removedBindings.has(pair(b.itemId, b.integrationId))) && !deletedItems.has(b.itemId))
    .concat(writes.bindings.insert);
  if (writes.bindings.insert.length > 0) bindings.sort((a, b) => byBytes(a.integrationId, b.integrationId) || byBytes(a.itemId, b.itemId));

  const after = {
    ...state,
    sections,
    sectionLayouts,
    items,
    itemLayouts,
    bindings,
    collapsedSectionIds: new Set([...state.collapsedSectionIds].filter((id) => !deletedSections.has(id))),
  };
  // A deleted section takes positions of items the writes do not name: those are regrouped when serialized.
  if (deletedSections.size === 0) keepItemRowsAfter(state, after, touchedItemIds(writes));
  return after;
}

/** The items whose row, positions or bindings `writes` change. */
function touchedItemIds(writes: ContentWrites): Set<string> {
  return new Set([
    ...writes.items.insert.map((item) => item.id),
    ...writes.items.update.map((item) => item.id),
    ...writes.items.delete,
    ...writes.itemPositions.insert.map((position) => position.itemId),
    ...writes.itemPositions.update.map((position) => position.itemId),
    ...writes.itemPositions.delete.map((position) => position.itemId),
    ...writes.bindings.insert.map((binding) => binding.itemId),
    ...writes.bindings.delete.map((binding) => binding.itemId),
  ]);
}

/** The state after applyLayoutPlan (store.ts) of `plan` on `state`. */
export function stateAfterLayoutPlan(state: BoardState, plan: LayoutPlan): BoardState {
  const boardId = state.board.id;
  const deleted = new Set(plan.deleteLayoutIds);
  const updates = new Map(plan.updateLayouts.map((l) => [l.id, l]));
  const layouts = sortLayouts([
    ...state.layouts
      .filter((l) => !deleted.has(l.id))
      .map((l) => {
        const update = updates.get(l.id);
        return update ? { ...l, name: update.name, columnCount: update.columnCount, breakpoint: update.breakpoint } : l;
      }),
    ...plan.insertLayouts.map((l) => ({ id: l.id, boardId, name: l.name, columnCount: l.columnCount, breakpoint: l.breakpoint })),
  ]);
  const replacedItems = new Map(plan.itemPositions.map((p) => [pair(p.itemId, p.layoutId), p]));
  const replacedSections = new Map(plan.sectionPositions.map((p) => [pair(p.sectionId, p.layoutId), p]));
  const itemLayouts = [
    ...state.itemLayouts.filter((p) => !replacedItems.has(pair(p.itemId, p.layoutId))),
    ...plan.itemPositions.map((p) => ({ ...p })),
  ].filter((p) => !deleted.has(p.layoutId));
  const sectionLayouts = [
    ...state.sectionLayouts.filter((p) => !replacedSections.has(pair(p.sectionId, p.layoutId))),
    ...plan.sectionPositions.map((p) => ({ ...p })),
  ].filter((p) => !deleted.has(p.layoutId));
  return { ...state, layouts, itemLayouts, sectionLayouts };
}
