import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { preparedStatement } from '../../db/prepared';
import { notFound } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { isKnownWidgetKind } from '../../widgets/registry';
import { assertBoardAccess, BoardPermissionLevel } from '../access';
import { boardSettingsFromRow } from '../settings';
import { BoardDocumentCache, CachedDocument } from './cache';
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
  layouts: LayoutRow[];
  /** Every section row of the board. */
  sections: SectionRow[];
  sectionLayouts: SectionLayoutRow[];
  /** Every item row of the board, including kinds unknown to this build. */
  items: ItemRow[];
  itemLayouts: ItemLayoutRow[];
  bindings: BindingRow[];
  /** Category sections the caller has collapsed. */
  collapsedSectionIds: Set<string>;
  userPermissions: { permission: BoardPermissionLevel }[];
  groupPermissions: { groupId: string; permission: BoardPermissionLevel }[];
}

export const sectionKinds = new Set(['category', 'empty', 'dynamic']);

/** Items the document shows (and the save compares against): rows whose widget kind this build knows. */
export function readableItems(state: Pick<BoardState, 'items'>): ItemRow[] {
  return state.items.filter((item) => isKnownWidgetKind(item.kind));
}

/** Sections the document shows: rows of a known section kind (anything else is left alone, like unknown items). */
export function readableSections(state: Pick<BoardState, 'sections'>): SectionRow[] {
  return state.sections.filter((section) => sectionKinds.has(section.kind));
}

/**
 * Loads the board's rows in nine queries whatever its size; null when the board does not exist.
 * Works on the database or inside a transaction (pass the transaction).
 */
export async function loadBoardState(q: Knex, boardId: string, principal: Principal | null): Promise<BoardState | null> {
  const board = await q('boards')
    .leftJoin('users', 'users.id', 'boards.creatorId')
    .where('boards.id', boardId)
    .first('boards.*', 'users.username as creatorUsername', 'users.email as creatorEmail');
  if (!board) return null;
  const layouts: LayoutRow[] = await q('layouts').where({ boardId }).orderBy([{ column: 'breakpoint' }, { column: 'id' }]);
  const sections: SectionRow[] = await q('sections').where({ boardId }).orderByRaw('y_offset asc nulls last, id asc');
  const sectionLayouts: SectionLayoutRow[] = await q('section_layouts')
    .join('sections', 'sections.id', 'section_layouts.sectionId')
    .where('sections.boardId', boardId)
    .select('section_layouts.*');
  const items: ItemRow[] = await q('items').where({ boardId }).orderBy('id');
  const itemLayouts: ItemLayoutRow[] = await q('item_layouts')
    .join('items', 'items.id', 'item_layouts.itemId')
    .where('items.boardId', boardId)
    .select('item_layouts.*');
  const bindings: BindingRow[] = await q('integration_items')
    .join('items', 'items.id', 'integration_items.itemId')
    .where('items.boardId', boardId)
    .select('integration_items.itemId', 'integration_items.integrationId')
    .orderBy('integration_items.integrationId');
  const collapsed: { sectionId: string }[] = await q('section_collapse_states')
    .join('sections', 'sections.id', 'section_collapse_states.sectionId')
    .where('sections.boardId', boardId)
    .andWhere('section_collapse_states.userId', principal?.userId ?? '')
    .andWhere('section_collapse_states.collapsed', true)
    .select('section_collapse_states.sectionId');
  const groupIds = principal && principal.groupIds.length > 0 ? principal.groupIds : [''];
  const permissionRows: { groupId: string | null; permission: BoardPermissionLevel }[] = await q
    .select(q.raw('NULL::text as group_id'), 'permission')
    .from('board_user_permissions')
    .where({ boardId, userId: principal?.userId ?? '' })
    .unionAll((union) => {
      union.select('groupId', 'permission').from('board_group_permissions').where({ boardId }).whereIn('groupId', groupIds);
    })
    .orderBy([{ column: 'groupId', order: 'asc', nulls: 'first' }, { column: 'permission' }]);

  const { creatorUsername, creatorEmail, ...boardRow } = board;
  return {
    board: boardRow,
    creator: creatorUsername != null && board.creatorId ? { id: board.creatorId, username: creatorUsername, email: creatorEmail ?? null } : null,
    layouts,
    sections,
    sectionLayouts,
    items,
    itemLayouts,
    bindings,
    collapsedSectionIds: new Set(collapsed.map((row) => row.sectionId)),
    userPermissions: permissionRows.filter((row) => row.groupId === null).map((row) => ({ permission: row.permission })),
    groupPermissions: permissionRows
      .filter((row) => row.groupId !== null)
      .map((row) => ({ groupId: row.groupId as string, permission: row.permission })),
  };
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

function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const row of rows) {
    const list = map.get(key(row));
    if (list) list.push(row);
    else map.set(key(row), [row]);
  }
  return map;
}

/** The board document as the caller sees it (spec "Board document"). */
export function toBoardDocument(state: BoardState): BoardDocument {
  const layoutOrder = new Map(state.layouts.map((layout, index) => [layout.id, index]));
  const byLayoutOrder = (a: { layoutId: string }, b: { layoutId: string }) => (layoutOrder.get(a.layoutId) ?? 0) - (layoutOrder.get(b.layoutId) ?? 0);
  const sectionLayouts = groupBy(state.sectionLayouts, (row) => row.sectionId);
  const itemLayouts = groupBy(state.itemLayouts, (row) => row.itemId);
  const bindings = groupBy(state.bindings, (row) => row.itemId);

  const sections: BoardSection[] = readableSections(state).map((row): BoardSection => {
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

  const items: BoardItem[] = readableItems(state).map((row) => ({
    id: row.id,
    kind: row.kind as BoardItem['kind'],
    options: isRecord(row.options) ? row.options : {},
    integrationIds: (bindings.get(row.id) ?? []).map((binding) => binding.integrationId),
    advancedOptions: normalizeAdvancedOptions(row.advancedOptions),
    layouts: (itemLayouts.get(row.id) ?? []).sort(byLayoutOrder).map((position) => ({
      layoutId: position.layoutId,
      sectionId: position.sectionId,
      xOffset: position.xOffset,
      yOffset: position.yOffset,
      width: position.width,
      height: position.height,
    })),
  }));

  const { board } = state;
  return {
    id: board.id,
    name: board.name,
    version: board.version,
    isPublic: board.isPublic,
    creatorId: board.creatorId,
    creator: state.creator ? { id: state.creator.id, name: state.creator.username, image: null, email: state.creator.email } : null,
    ...boardSettingsFromRow(board),
    layouts: state.layouts.map((layout) => ({ id: layout.id, name: layout.name, columnCount: layout.columnCount, breakpoint: layout.breakpoint })),
    sections,
    items,
    userPermissions: state.userPermissions,
    groupPermissions: state.groupPermissions,
  };
}

/** Strong ETag of the document exactly as this caller receives it. */
export function etagOf(document: BoardDocument): string {
  return etagOfSerialized(JSON.stringify(document));
}

function etagOfSerialized(json: string | Buffer): string {
  return `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
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

/** If-None-Match (RFC 9110 §13.1.2, weak comparison): `*`, or a listed tag, weak or not, equal to the current ETag. */
export function ifNoneMatchMatches(header: string, etag: string): boolean {
  const tags = entityTags(header);
  return tags === '*' || tags.some((tag) => tag.opaque === etag);
}

/**
 * Loads the board's rows from one snapshot: the nine reads run in a read-only REPEATABLE READ transaction, so a
 * concurrent write can never show half of itself.
 */
async function loadBoardSnapshot(db: Knex, boardId: string, principal: Principal | null): Promise<BoardState> {
  const state = await db.transaction((trx) => loadBoardState(trx, boardId, principal), { isolationLevel: 'repeatable read', readOnly: true });
  if (!state) throw notFound('Board not found');
  return state;
}

/** The document for a caller with at least `level` on the board (404 `Board not found` otherwise). */
export async function readBoardDocument(
  db: Knex,
  boardId: string,
  principal: Principal | null,
  level: BoardPermissionLevel = 'view',
): Promise<{ document: BoardDocument; etag: string }> {
  await assertBoardAccess(db, boardId, principal, level);
  const document = toBoardDocument(await loadBoardSnapshot(db, boardId, principal));
  return { document, etag: etagOf(document) };
}

/** The levels of the caller's own user and group rows, order-independent. */
const ownRowsKey = (userLevels: string[], groupLevels: string[]) => `${userLevels.sort().join(',')}|${groupLevels.sort().join(',')}`;

/** The caller's collapsed category sections of the board, as a stable key. */
async function collapsedKey(db: Knex, boardId: string, userId: string): Promise<string> {
  const rows: { sectionId: string }[] = await db('section_collapse_states')
    .join('sections', 'sections.id', 'section_collapse_states.sectionId')
    .where({ 'sections.boardId': boardId, 'section_collapse_states.userId': userId, 'section_collapse_states.collapsed': true })
    .select('section_collapse_states.sectionId')
    .orderBy('section_collapse_states.sectionId')
    .options(preparedStatement('tessera_board_collapsed'));
  return rows.map((row) => row.sectionId).join(',');
}

/**
 * GET /api/boards/{id}: the serialized document and its ETag. Served from the instance's cache when the board's
 * current revision (read from the database on every request, with the access check) has been serialized for
 * the same creator, caller, caller's groups and collapsed sections; otherwise loaded from one snapshot, once for
 * all the requests that miss the same key at the same time.
 */
export async function readBoardDocumentJson(
  db: Knex,
  cache: BoardDocumentCache,
  boardId: string,
  principal: Principal | null,
): Promise<{ json: Buffer; etag: string }> {
  const access = await assertBoardAccess(db, boardId, principal, 'view');
  const userId = principal?.userId ?? null;
  // The caller's permission rows in the document change only with a board write (which moves the revision)
  // or with the caller's memberships, hence the group ids in the key.
  const groupIds = principal ? [...principal.groupIds].sort().join(',') : '';
  const needsCollapsed = userId !== null && cache.hasCategorySections(boardId, access.revision) !== false;
  const key = BoardDocumentCache.key({
    boardId,
    revision: access.revision,
    creatorId: access.creatorId,
    userId,
    groupIds,
    ownRows: ownRowsKey([...access.userPermissions], [...access.groupPermissions]),
    collapsed: needsCollapsed ? await collapsedKey(db, boardId, userId) : '',
  });
  return cache.getOrBuild(key, async () => {
    const { document, revision, key: builtKey } = await loadDocumentForCache(db, boardId, principal, groupIds);
    const entry = serializeDocument(document);
    cache.set(builtKey(entry.hasCategorySections), boardId, revision, entry);
    return entry;
  });
}

/**
 * The document from one snapshot, with what keys it in the cache (from the snapshot, which may be newer than the
 * request's access check). The snapshot's rows are garbage once this returns, before the document is serialized.
 */
async function loadDocumentForCache(db: Knex, boardId: string, principal: Principal | null, groupIds: string) {
  const state = await loadBoardSnapshot(db, boardId, principal);
  const userId = principal?.userId ?? null;
  const parts = {
    boardId,
    revision: state.board.revision,
    creatorId: state.board.creatorId,
    userId,
    groupIds,
    ownRows: ownRowsKey(
      state.userPermissions.map((row) => row.permission),
      state.groupPermissions.map((row) => row.permission),
    ),
  };
  const collapsed = [...state.collapsedSectionIds].sort().join(',');
  return {
    document: toBoardDocument(state),
    revision: state.board.revision,
    key: (hasCategorySections: boolean) => BoardDocumentCache.key({ ...parts, collapsed: userId !== null && hasCategorySections ? collapsed : '' }),
  };
}

/** The document's UTF-8 bytes and ETag; the intermediate string lives only until the bytes are made. */
function serializeDocument(document: BoardDocument): CachedDocument {
  const json = Buffer.from(JSON.stringify(document), 'utf8');
  return { json, etag: etagOfSerialized(json), hasCategorySections: document.sections.some((section) => section.kind === 'category') };
}
