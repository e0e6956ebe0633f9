/**
 * The pure read model of a board: the stored rows of one board (BoardState) and the document a caller receives
 * (DOC-1..5), with its ETag and the conditional-request comparisons. No I/O: the queries are in store.ts.
 */
import { createHash, type Hash } from 'node:crypto';
import { emailAsSeenBy, type EmailReader } from '../../identity/principal';
import { isKnownWidgetKind } from '../../widgets/registry';
import type { BoardPermissionLevel } from '../access';
import { boardSettingsFromRow } from '../settings';
import type {
  BindingRow,
  BoardDocument,
  BoardItem,
  BoardSection,
  DynamicSectionOptions,
  ItemAdvancedOptions,
  ItemLayoutRow,
  ItemRow,
  LayoutRow,
  SectionLayoutRow,
  SectionRow,
} from './types';

/** Everything stored about one board, as read in a fixed number of queries (independent of the board's size). */
export interface BoardState {
  board: Record<string, any> & { id: string; name: string; version: number; revision: number; isPublic: boolean; creatorId: string | null };
  creator: { id: string; username: string; email: string | null } | null;
  /** Sorted by breakpoint, then id. */
  layouts: LayoutRow[];
  /** Every section row of the board, by yOffset (nulls last), then id. */
  sections: SectionRow[];
  sectionLayouts: SectionLayoutRow[];
  /** Every item row of the board by id, including kinds unknown to this build. */
  items: ItemRow[];
  itemLayouts: ItemLayoutRow[];
  /** By integration id. */
  bindings: BindingRow[];
  /** Category sections the caller has collapsed. */
  collapsedSectionIds: Set<string>;
  userPermissions: { permission: BoardPermissionLevel }[];
  groupPermissions: { groupId: string; permission: BoardPermissionLevel }[];
  /** Whether the caller sees the creator's e-mail (PRIV-1). */
  reader: EmailReader;
}

export const sectionKinds = new Set(['category', 'empty', 'dynamic']);

/** Items the document shows (and the save compares against): rows whose widget kind this build knows (DOC-3, PUT-13). */
export function readableItems(state: Pick<BoardState, 'items'>): ItemRow[] {
  return state.items.filter((item) => isKnownWidgetKind(item.kind));
}

/** Sections the document shows: rows of a known section kind (anything else is left alone, like unknown items). */
export function readableSections(state: Pick<BoardState, 'sections'>): SectionRow[] {
  return state.sections.filter((section) => sectionKinds.has(section.kind));
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const stringList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** Advanced item options with defaults applied and unknown keys dropped. */
export function normalizeAdvancedOptions(raw: unknown): ItemAdvancedOptions {
  const value = isRecord(raw) ? raw : {};
  return {
    title: typeof value.title === 'string' ? value.title : null,
    customCssClasses: stringList(value.customCssClasses),
    borderColor: typeof value.borderColor === 'string' ? value.borderColor : '',
  };
}

/** Dynamic section options with defaults applied and unknown keys dropped. */
export function normalizeDynamicOptions(raw: unknown): DynamicSectionOptions {
  const value = isRecord(raw) ? raw : {};
  return {
    title: typeof value.title === 'string' ? value.title : '',
    customCssClasses: stringList(value.customCssClasses),
    borderColor: typeof value.borderColor === 'string' ? value.borderColor : '',
  };
}

export function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const row of rows) {
    const list = map.get(key(row));
    if (list) list.push(row);
    else map.set(key(row), [row]);
  }
  return map;
}

/** Sorts positions by the order of their layouts on the board (breakpoint, then id). */
function layoutOrderOf(state: Pick<BoardState, 'layouts'>): (a: { layoutId: string }, b: { layoutId: string }) => number {
  const order = new Map(state.layouts.map((layout, index) => [layout.id, index]));
  return (a, b) => (order.get(a.layoutId) ?? 0) - (order.get(b.layoutId) ?? 0);
}

function sectionDocuments(state: BoardState, byLayoutOrder: ReturnType<typeof layoutOrderOf>): BoardSection[] {
  const sectionLayouts = groupBy(state.sectionLayouts, (row) => row.sectionId);
  return readableSections(state).map((row): BoardSection => {
    if (row.kind === 'category') {
      return {
        id: row.id,
        kind: 'category',
        name: row.name ?? '',
        yOffset: row.yOffset ?? 0,
        xOffset: row.xOffset ?? 0,
        collapsed: state.collapsedSectionIds.has(row.id),
      };
    }
    if (row.kind === 'empty') return { id: row.id, kind: 'empty', yOffset: row.yOffset ?? 0, xOffset: row.xOffset ?? 0 };
    return {
      id: row.id,
      kind: 'dynamic',
      options: normalizeDynamicOptions(row.options),
      layouts: (sectionLayouts.get(row.id) ?? [])
        .filter((position) => position.parentSectionId !== null)
        .sort(byLayoutOrder)
        .map((position) => ({
          layoutId: position.layoutId,
          parentSectionId: position.parentSectionId as string,
          xOffset: position.xOffset,
          yOffset: position.yOffset,
          width: position.width,
          height: position.height,
        })),
    };
  });
}

/** One item of the document, from its row, its positions (sorted by layout order) and its bindings. */
function itemDocument(row: ItemRow, positions: readonly ItemLayoutRow[], bindings: readonly BindingRow[]): BoardItem {
  return {
    id: row.id,
    kind: row.kind as BoardItem['kind'],
    options: isRecord(row.options) ? row.options : {},
    integrationIds: bindings.map((binding) => binding.integrationId),
    advancedOptions: normalizeAdvancedOptions(row.advancedOptions),
    layouts: positions.map((position) => ({
      layoutId: position.layoutId,
      sectionId: position.sectionId,
      xOffset: position.xOffset,
      yOffset: position.yOffset,
      width: position.width,
      height: position.height,
    })),
  };
}

/** An item's positions, in the order of their layouts on the board, and its bindings. */
export interface ItemRows {
  positions: ItemLayoutRow[];
  bindings: BindingRow[];
}

/** The rows of every item of a state, by item id, with the arrays they were grouped from. */
interface ItemGroups {
  layouts: readonly LayoutRow[];
  bindings: readonly BindingRow[];
  byItem: Map<string, ItemRows>;
}

/**
 * Item groups by the `itemLayouts` array they were made from (with its state's `layouts` and `bindings`, checked on
 * use). Arrays of a state are never changed in place, so a state's rows are grouped once however often it is
 * serialized, and a written state's groups are derived from its predecessor's (keepItemRowsAfter).
 */
const itemGroups = new WeakMap<readonly ItemLayoutRow[], ItemGroups>();

const noItemRows: ItemRows = Object.freeze({ positions: [], bindings: [] }) as unknown as ItemRows;

/** `positions` and `bindings` grouped by item, each item's positions sorted by layout order. */
function groupItemRows(state: Pick<BoardState, 'layouts'>, positions: readonly ItemLayoutRow[], bindings: readonly BindingRow[]): Map<string, ItemRows> {
  const byItem = new Map<string, ItemRows>();
  const rowsOf = (itemId: string) => {
    let rows = byItem.get(itemId);
    if (!rows) byItem.set(itemId, (rows = { positions: [], bindings: [] }));
    return rows;
  };
  for (const position of positions) rowsOf(position.itemId).positions.push(position);
  for (const binding of bindings) rowsOf(binding.itemId).bindings.push(binding);
  const byLayoutOrder = layoutOrderOf(state);
  for (const rows of byItem.values()) if (rows.positions.length > 1) rows.positions.sort(byLayoutOrder);
  return byItem;
}

/** Each item's positions (in layout order) and bindings, by item id. */
export function itemRowsOf(state: Pick<BoardState, 'layouts' | 'itemLayouts' | 'bindings'>): ReadonlyMap<string, ItemRows> {
  const kept = itemGroups.get(state.itemLayouts);
  if (kept && kept.layouts === state.layouts && kept.bindings === state.bindings) return kept.byItem;
  const byItem = groupItemRows(state, state.itemLayouts, state.bindings);
  itemGroups.set(state.itemLayouts, { layouts: state.layouts, bindings: state.bindings, byItem });
  return byItem;
}

/**
 * Keeps the item groups of `after`, a state a write made from `before` in which only the positions and bindings of
 * the `touched` items may differ (same layouts, every other row the same object), derived from `before`'s groups when
 * they are kept: a write that changes one item of a large board regroups that item only. Without them, or with
 * other layouts, nothing is kept and `after` is grouped when first serialized.
 */
export function keepItemRowsAfter(before: BoardState, after: BoardState, touched: ReadonlySet<string>): void {
  const kept = itemGroups.get(before.itemLayouts);
  if (!kept || kept.layouts !== before.layouts || kept.bindings !== before.bindings || after.layouts !== before.layouts) return;
  if (after.itemLayouts === before.itemLayouts && after.bindings === before.bindings) return;
  // Nothing touched (an unchanged save): the same rows in the same order, so the same groups.
  if (touched.size === 0) {
    itemGroups.set(after.itemLayouts, { layouts: after.layouts, bindings: after.bindings, byItem: kept.byItem });
    return;
  }
  const byItem = new Map(kept.byItem);
  for (const itemId of touched) byItem.delete(itemId);
  const regrouped = groupItemRows(
    after,
    after.itemLayouts.filter((position) => touched.has(position.itemId)),
    after.bindings.filter((binding) => touched.has(binding.itemId)),
  );
  for (const [itemId, rows] of regrouped) byItem.set(itemId, rows);
  itemGroups.set(after.itemLayouts, { layouts: after.layouts, bindings: after.bindings, byItem });
}

/** Each readable item with its rows. */
function itemParts(state: BoardState): { row: ItemRow; rows: ItemRows }[] {
  const rowsByItem = itemRowsOf(state);
  return readableItems(state).map((row) => ({ row, rows: rowsByItem.get(row.id) ?? noItemRows }));
}

/** The document's sections of a board (DOC-1, DOC-4): sections are few, unlike items. */
export function sectionDocumentsOf(state: BoardState): BoardSection[] {
  return sectionDocuments(state, layoutOrderOf(state));
}

/** One readable item of the board as the document shows it, found without building the others; undefined if none. */
export function itemDocumentOf(state: BoardState, itemId: string): BoardItem | undefined {
  const row = state.items.find((candidate) => candidate.id === itemId);
  if (!row || !isKnownWidgetKind(row.kind)) return undefined;
  const positions = state.itemLayouts.filter((position) => position.itemId === itemId).sort(layoutOrderOf(state));
  return itemDocument(row, positions, state.bindings.filter((binding) => binding.itemId === itemId));
}

/** The document's fields before its sections. */
function documentHead(state: BoardState) {
  const { board } = state;
  return {
    id: board.id,
    name: board.name,
    version: board.version,
    isPublic: board.isPublic,
    // FLEET-1
    managedBy: board.managedBy ?? null,
    creatorId: board.creatorId,
    creator: state.creator ? { id: state.creator.id, name: state.creator.username, image: null, email: emailAsSeenBy(state.reader, state.creator.id, state.creator.email) } : null,
    ...boardSettingsFromRow(board),
    layouts: state.layouts.map((layout) => ({ id: layout.id, name: layout.name, columnCount: layout.columnCount, breakpoint: layout.breakpoint })),
  };
}

/** The board document as the caller sees it (DOC-1, DOC-3, DOC-4). */
export function toBoardDocument(state: BoardState): BoardDocument {
  const byLayoutOrder = layoutOrderOf(state);
  return {
    ...documentHead(state),
    sections: sectionDocuments(state, byLayoutOrder),
    items: itemParts(state).map((part) => itemDocument(part.row, part.rows.positions, part.rows.bindings)),
    userPermissions: state.userPermissions,
    groupPermissions: state.groupPermissions,
  };
}

export interface SerializedDocument {
  /** The UTF-8 bytes of the document as sent, in parts (to be written one after the other). */
  parts: readonly Buffer[];
  /** Their total length. */
  length: number;
  etag: string;
  /** Bytes of `{sections, items}` as compact JSON: what the board limits measure (LIMIT-1). */
  contentBytes: number;
  hasCategorySections: boolean;
}

/**
 * The serialized bytes of an item, kept with the rows they were made of. Rows are never changed in place (a write
 * makes new rows for what it changes and keeps the others as the same objects), so the bytes are reused as long as
 * the item's row, positions and bindings are the same objects.
 */
interface ItemBytes {
  rows: ItemRows;
  bytes: Buffer;
}
const itemBytes = new WeakMap<ItemRow, ItemBytes>();

const sameObjects = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((row, i) => row === b[i]);
const sameRows = (a: ItemRows, b: ItemRows) => a === b || (sameObjects(a.positions, b.positions) && sameObjects(a.bindings, b.bindings));

/** The JSON of an item row's own fields (what does not depend on its positions and bindings), kept with the row. */
const rowTexts = new WeakMap<ItemRow, { head: string; advancedOptions: string }>();

function rowTextOf(row: ItemRow): { head: string; advancedOptions: string } {
  let text = rowTexts.get(row);
  if (!text) {
    const options = isRecord(row.options) ? row.options : {};
    text = {
      head: `{"id":${JSON.stringify(row.id)},"kind":${JSON.stringify(row.kind)},"options":${JSON.stringify(options)}`,
      advancedOptions: JSON.stringify(normalizeAdvancedOptions(row.advancedOptions)),
    };
    rowTexts.set(row, text);
  }
  return text;
}

/** A position as itemDocument writes it; offsets and sizes are integers (int columns, int32 in the contract). */
const positionText = (p: ItemLayoutRow) =>
  `{"layoutId":${JSON.stringify(p.layoutId)},"sectionId":${JSON.stringify(p.sectionId)},"xOffset":${p.xOffset},"yOffset":${p.yOffset},"width":${p.width},"height":${p.height}}`;

/**
 * The bytes of JSON.stringify(itemDocument(...)), written by hand: a layout change re-serializes every item of the
 * board, and the row's own JSON (options) is reused from the row's earlier serialization.
 */
function bytesOfItem({ row, rows }: { row: ItemRow; rows: ItemRows }): Buffer {
  const kept = itemBytes.get(row);
  if (kept && sameRows(kept.rows, rows)) return kept.bytes;
  const own = rowTextOf(row);
  const integrationIds = JSON.stringify(rows.bindings.map((binding) => binding.integrationId));
  const text = `${own.head},"integrationIds":${integrationIds},"advancedOptions":${own.advancedOptions},"layouts":[${rows.positions.map(positionText).join(',')}]}`;
  const bytes = Buffer.from(text, 'utf8');
  itemBytes.set(row, { rows, bytes });
  return bytes;
}

const comma = Buffer.from(',');
const openBracket = Buffer.from('[');
const closeBracket = Buffer.from(']');
const itemsKey = Buffer.from(',"items":');

/** Items per block of joined item bytes: a response is a few dozen parts, and a change rejoins one block. */
const blockSize = 64;

/**
 * Joined bytes of consecutive items (with the commas between them) and their SHA-256, kept with the item bytes they
 * join, by the first of them: reused while the same item bytes follow one another.
 */
interface ItemBlock {
  members: readonly Buffer[];
  bytes: Buffer;
  digest: Buffer;
}
const blocks = new WeakMap<Buffer, ItemBlock>();

function itemBlocks(items: readonly Buffer[]): ItemBlock[] {
  const out: ItemBlock[] = [];
  for (let start = 0; start < items.length; start += blockSize) {
    const members = items.slice(start, start + blockSize);
    const kept = blocks.get(members[0]);
    if (kept && sameObjects(kept.members, members)) {
      out.push(kept);
      continue;
    }
    const bytes = Buffer.concat(members.flatMap((member, i) => (i === 0 ? [member] : [comma, member])));
    const block = { members, bytes, digest: createHash('sha256').update(bytes).digest() };
    blocks.set(members[0], block);
    out.push(block);
  }
  return out;
}

/**
 * The document of `state` serialized: exactly the bytes of JSON.stringify(toBoardDocument(state)), as parts: the
 * head, the sections, blocks of item bytes (each item's bytes reused while its rows are unchanged, each block while
 * its items are, so a write's answer costs little more than its change) and the caller's rows; with its ETag and the
 * size of its sections and items. The ETag hashes the parts with each block of items in by its own SHA-256 (kept
 * with the block), so that a large document is not hashed whole on every write: still a function of the bytes sent
 * that changes with any of them (DOC-5).
 */
export function serializeState(state: BoardState): SerializedDocument {
  const byLayoutOrder = layoutOrderOf(state);
  const sections = sectionDocuments(state, byLayoutOrder);
  const sectionsBytes = Buffer.from(JSON.stringify(sections), 'utf8');
  const items = itemParts(state).map(bytesOfItem);
  const itemBlockParts = itemBlocks(items);
  const head = Buffer.from(`${JSON.stringify(documentHead(state)).slice(0, -1)},"sections":`, 'utf8');
  const tail = Buffer.from(`,"userPermissions":${JSON.stringify(state.userPermissions)},"groupPermissions":${JSON.stringify(state.groupPermissions)}}`, 'utf8');
  const parts = [head, sectionsBytes, itemsKey, openBracket, ...itemBlockParts.flatMap((block, i) => (i === 0 ? [block.bytes] : [comma, block.bytes])), closeBracket, tail];
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const hash = createHash('sha256').update(head).update(sectionsBytes);
  for (const block of itemBlockParts) hash.update(block.digest);
  hash.update(tail);
  return {
    parts,
    length,
    etag: etagOfDigest(hash),
    contentBytes: length - head.length - tail.length + '{"sections":'.length + '}'.length,
    hasCategorySections: sections.some((section) => section.kind === 'category'),
  };
}

/** Strong ETag (DOC-5) from the hash of a document's parts. */
function etagOfDigest(hash: Hash): string {
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}

/** The entity tags listed in an If-Match or If-None-Match value (RFC 9110 §8.8.3), or `*`. */
function entityTags(header: string): '*' | { weak: boolean; opaque: string }[] {
  if (header.trim() === '*') return '*';
  return [...header.matchAll(/(W\/)?("[^"]*")/g)].map((match) => ({ weak: match[1] !== undefined, opaque: match[2] }));
}

/** If-Match (RFC 9110 §13.1.1, strong comparison): `*`, or a listed strong tag equal to the current ETag. */
export function ifMatchMatches(header: string, etag: string): boolean {
  const tags = entityTags(header);
  return tags === '*' || tags.some((tag) => !tag.weak && tag.opaque === etag);
}

/** If-None-Match (RFC 9110 §13.1.2, weak comparison): `*`, or a listed tag, weak or not, equal to the current ETag (HTTP-3). */
export function ifNoneMatchMatches(header: string, etag: string): boolean {
  const tags = entityTags(header);
  return tags === '*' || tags.some((tag) => tag.opaque === etag);
}
