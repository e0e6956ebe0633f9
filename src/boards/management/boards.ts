import type { Knex } from 'knex';
import type { PartialModelObject } from 'objection';
import type { Db } from '../../db/database';
import { HistoryContext, recordFieldChange, recordStateChange } from '../history/record';
import { recordAppPlacements } from '../../apps/placements';
import { isForeignKeyViolation } from '../../db/errors';
import { newId } from '../../db/ids';
import { badRequest, notFound } from '../../core/errors';
import { assertPermission, emailAsSeenBy, emailReaderOf, keyBoardScope, type Principal } from '../../identity/principal';
import { usableIntegrationIds } from '../../integrations/access';
import { clearServerHomeBoard, lockServerBoardSettings } from '../../settings/serverSettings';
import { assertBoardAccess, type BoardPermissionLevel } from '../access';
import { lockAndLoad } from '../document/save';
import { assertBoardSettings, boardSettingsColumns, type BoardSettings } from '../settings';
import { assertWithinBoardLimits, measureBoard } from '../document/limits';
import { toBoardDocument } from '../document/model';
import { loadBoardState } from '../document/store';
import { assertBoardNameAvailable, withNameConflictAs409 } from './names';
import { whereAmong } from '../../db/idList';
import { decodeCursor, Page, pageOfRows, type PageRequest } from '../../core/pages';
import { independentReads } from '../../db/independentReads';
import { resolveHomeBoard } from '../home/resolve';
import { loadHomeCandidates } from '../home/store';
import { BaseModel, Board, BoardGroupPermission, BoardUserPermission, IntegrationItem, Item, ItemLayout, Layout, ProvisionedBoard, Section, SectionCollapseState, SectionLayout, User } from '../../db/models';

export interface BoardSummary {
  id: string;
  name: string;
  logoImageUrl: string | null;
  isPublic: boolean;
  managedBy: string | null;
  creator: { id: string; name: string; image: null; email: string | null } | null;
  isHome: boolean;
  isMobileHome: boolean;
  userPermissions: { permission: BoardPermissionLevel }[];
  groupPermissions: { permission: BoardPermissionLevel }[];
}

const boardNotFound = () => notFound('Board not found');

/** The list's order: creation time (in microseconds, exact) and id (HTTP-8 cursors hold both). */
const createdMicros = `(extract(epoch from ${Board.tableName}.created_at) * 1000000)::bigint`;

/** The boards the caller can access (BOARD-6), in creation order. */
export async function listBoards(db: Db, principal: Principal | null): Promise<BoardSummary[]> {
  return (await listBoardsPage(db, principal, {})).items;
}

/**
 * GET /api/boards: the boards the caller can access (BOARD-6), in creation order, a page of them when asked (HTTP-8).
 * Two queries whatever the number of boards: the caller's home pointers, and the boards with their creator
 * and the caller's own rows aggregated per board.
 */
export async function listBoardsPage(db: Db, principal: Principal | null, page: PageRequest & { drifted?: boolean }): Promise<Page<BoardSummary>> {
  const userId = principal?.userId ?? '';
  const groupIds = principal && principal.groupIds.length > 0 ? principal.groupIds : [''];
  const ownRows = (model: typeof BoardUserPermission | typeof BoardGroupPermission) => {
    const query = (model as typeof BaseModel).query(db).whereRaw(`${model.tableName}.board_id = ${Board.tableName}.id`);
    return model === BoardUserPermission ? query.where('userId', userId) : query.whereIn('groupId', groupIds);
  };
  const aggregate = (model: typeof BoardUserPermission | typeof BoardGroupPermission, alias: string) =>
    ownRows(model)
      .select(db.raw(`coalesce(json_agg(json_build_object('permission', permission) ORDER BY permission), '[]'::json)`))
      .as(alias);

  const boardsQuery = Board.query(db)
    .leftJoin(User.tableName, User.col('id'), Board.col('creatorId'))
    .select(
      Board.col('id'),
      Board.col('name'),
      Board.col('logoImageUrl'),
      Board.col('isPublic'),
      Board.col('managedBy'),
      Board.col('creatorId'),
      `${User.col('username')} as creatorName`,
      `${User.col('email')} as creatorEmail`,
      aggregate(BoardUserPermission, 'userPermissions'),
      aggregate(BoardGroupPermission, 'groupPermissions'),
      db.raw(`${createdMicros} as created_micros`),
    )
    .orderBy([{ column: Board.col('createdAt') }, { column: Board.col('id') }]);
  if (page.cursor !== undefined) boardsQuery.whereRaw(`(${createdMicros}, ${Board.tableName}.id) > (?, ?)`, decodeCursor(page.cursor, ['number', 'string']));
  if (page.limit !== undefined) boardsQuery.limit(page.limit + 1);
  // DRIFT-2: provisioned boards another writer changed since their file was applied.
  if (page.drifted) boardsQuery.whereExists(ProvisionedBoard.query(db).whereRaw(`${ProvisionedBoard.tableName}.board_id = ${Board.tableName}.id`).where('drifted', true).select(db.raw('1')));
  // KEY-8: a board-scoped key lists its boards only.
  const scope = keyBoardScope(principal);
  if (scope !== null) boardsQuery.modify(whereAmong, Board.col('id'), scope);
  if (!principal?.permissions.has('board-view-all')) {
    boardsQuery.where((visible) => {
      visible.where(Board.col('isPublic'), true);
      if (principal) {
        visible
          .orWhere(Board.col('creatorId'), principal.userId)
          .orWhereExists(ownRows(BoardUserPermission).select(db.raw('1')))
          .orWhereExists(ownRows(BoardGroupPermission).select(db.raw('1')));
      }
    });
  }

  const [rows, me] = await independentReads(db, [
    () => boardsQuery.castTo<
      {
        id: string;
        name: string;
        logoImageUrl: string | null;
        isPublic: boolean;
        managedBy: string | null;
        creatorId: string | null;
        creatorName: string | null;
        creatorEmail: string | null;
        createdMicros: number;
        userPermissions: { permission: BoardPermissionLevel }[];
        groupPermissions: { permission: BoardPermissionLevel }[];
      }[]
    >(),
    () => principal
      ? (User.query(db).findById(principal.userId).select('homeBoardId', 'mobileHomeBoardId') as unknown as Promise<
          { homeBoardId: string | null; mobileHomeBoardId: string | null } | undefined
        >)
      : Promise.resolve(undefined),
  ]);
  const { items, nextCursor } = pageOfRows(rows, page.limit, (row) => [row.createdMicros, row.id]);
  const reader = emailReaderOf(principal);
  const boards = items.map((row) => ({
    id: row.id,
    name: row.name,
    logoImageUrl: row.logoImageUrl,
    isPublic: row.isPublic,
    managedBy: row.managedBy,
    creator: row.creatorId && row.creatorName !== null ? { id: row.creatorId, name: row.creatorName, image: null, email: emailAsSeenBy(reader, row.creatorId, row.creatorEmail) } : null,
    isHome: me?.homeBoardId === row.id,
    isMobileHome: me?.mobileHomeBoardId === row.id,
    userPermissions: principal ? row.userPermissions : [],
    groupPermissions: principal ? row.groupPermissions : [],
  }));
  return { items: boards, nextCursor };
}

/**
 * POST /api/boards (BOARD-1, NAME-2): board, one empty section and the layout `Base` at breakpoint 0, in one
 * transaction; the board becomes the caller's home board when it has none. Names collide case-insensitively (409).
 */
export async function createBoard(
  db: Db,
  principal: Principal,
  input: { name: string; columnCount: number; isPublic: boolean },
  history: HistoryContext,
): Promise<string> {
  assertPermission(principal, 'board-create');
  const boardId = newId();
  await withNameConflictAs409(() =>
    db.transaction(async (trx) => {
      await assertBoardNameAvailable(trx, input.name);
      await Board.query(trx).insert({ id: boardId, name: input.name, isPublic: input.isPublic, creatorId: principal.userId });
      await Section.query(trx).insert({ id: newId(), boardId, kind: 'empty', xOffset: 0, yOffset: 0 });
      await Layout.query(trx).insert({ id: newId(), boardId, name: 'Base', columnCount: input.columnCount, breakpoint: 0 });
      await User.query(trx).where({ id: principal.userId }).whereNull('homeBoardId').patch({ homeBoardId: boardId });
      await recordCreation(trx, boardId, principal, history);
    }),
  );
  return boardId;
}

/**
 * POST /api/boards/{id}/duplicate (BOARD-2): 403 without board-create, 404 without view on the
 * source, 409 on a name collision; then one transaction copies the board row (settings and visibility, version
 * 0, the caller as creator), layouts, sections, dynamic-section positions, collapse states, items, item
 * positions and the bindings of integrations the caller may use, all with fresh ids. Grants are not copied.
 * 400 when the copy is past a board limit.
 */
export async function duplicateBoard(db: Db, principal: Principal, sourceId: string, name: string, history: HistoryContext): Promise<string> {
  assertPermission(principal, 'board-create');
  const boardId = newId();
  await withNameConflictAs409(() =>
    db.transaction(async (trx) => {
      await assertBoardAccess(trx, sourceId, principal, 'view');
      await assertBoardNameAvailable(trx, name);
      // FOR SHARE: the source cannot change or disappear while it is copied.
      const source = await Board.query(trx).findById(sourceId).forShare().castTo<Record<string, unknown> | undefined>();
      if (!source) throw boardNotFound();

      const settings = Object.fromEntries(boardSettingsColumns.map((column) => [column, source[column]]));
      const row: Record<string, unknown> = { ...settings, id: boardId, name, isPublic: source.isPublic, creatorId: principal.userId };
      await Board.query(trx).insert(row as PartialModelObject<Board>);

      const layouts: { id: string; name: string; columnCount: number; breakpoint: number }[] = await Layout.table(trx)
        .where({ boardId: sourceId })
        .select('id', 'name', 'columnCount', 'breakpoint');
      const sections: { id: string; kind: string; xOffset: number | null; yOffset: number | null; name: string | null; options: unknown }[] =
        await Section.table(trx).where({ boardId: sourceId }).select('id', 'kind', 'xOffset', 'yOffset', 'name', 'options');
      const items: { id: string; kind: string; options: unknown; advancedOptions: unknown }[] = await Item.table(trx)
        .where({ boardId: sourceId })
        .select('id', 'kind', 'options', 'advancedOptions');
      const sectionIds = sections.map((s) => s.id);
      const itemIds = items.map((i) => i.id);
      const [sectionLayouts, collapseStates, itemLayouts, bindings] = await independentReads(trx, [
        () => SectionLayout.table(trx).modify(whereAmong, 'sectionId', sectionIds).select('*') as Promise<
          { sectionId: string; layoutId: string; parentSectionId: string | null; xOffset: number; yOffset: number; width: number; height: number }[]
        >,
        () => SectionCollapseState.table(trx).modify(whereAmong, 'sectionId', sectionIds).select('*') as Promise<
          { userId: string; sectionId: string; collapsed: boolean }[]
        >,
        () => ItemLayout.table(trx).modify(whereAmong, 'itemId', itemIds).select('*') as Promise<
          { itemId: string; sectionId: string; layoutId: string; xOffset: number; yOffset: number; width: number; height: number }[]
        >,
        () => IntegrationItem.table(trx).modify(whereAmong, 'itemId', itemIds).select('itemId', 'integrationId') as Promise<
          { itemId: string; integrationId: string }[]
        >,
      ]);
      const usable = await usableIntegrationIds(trx, principal, [...new Set(bindings.map((b) => b.integrationId))]);

      const layoutIds = freshIds(layouts);
      const newSectionIds = freshIds(sections);
      const newItemIds = freshIds(items);
      await insertAll(trx, Layout, layouts.map((l) => ({ ...l, id: layoutIds.get(l.id), boardId })));
      await insertAll(
        trx,
        Section,
        sections.map((s) => ({ ...s, id: newSectionIds.get(s.id), boardId, options: s.options === null ? null : JSON.stringify(s.options) })),
      );
      await insertAll(
        trx,
        SectionLayout,
        sectionLayouts.map((sl) => ({
          ...sl,
          sectionId: newSectionIds.get(sl.sectionId),
          layoutId: layoutIds.get(sl.layoutId),
          parentSectionId: sl.parentSectionId === null ? null : (newSectionIds.get(sl.parentSectionId) ?? null),
        })),
      );
      await insertAll(trx, SectionCollapseState, collapseStates.map((c) => ({ ...c, sectionId: newSectionIds.get(c.sectionId) })));
      await insertAll(
        trx,
        Item,
        items.map((i) => ({
          ...i,
          id: newItemIds.get(i.id),
          boardId,
          options: JSON.stringify(i.options),
          advancedOptions: JSON.stringify(i.advancedOptions),
        })),
      );
      await insertAll(
        trx,
        ItemLayout,
        itemLayouts.map((il) => ({ ...il, itemId: newItemIds.get(il.itemId), sectionId: newSectionIds.get(il.sectionId), layoutId: layoutIds.get(il.layoutId) })),
      );
      await insertAll(
        trx,
        IntegrationItem,
        bindings.filter((b) => usable.has(b.integrationId)).map((b) => ({ itemId: newItemIds.get(b.itemId), integrationId: b.integrationId })),
      );
      // App placements are vouched anew: by the duplicating user's own access, not copied from the source.
      await recordAppPlacements(trx, principal, items.map((i) => ({ ...i, id: newItemIds.get(i.id)! })));
      // Fresh ids can be longer than the source's client-minted ones: the copy is measured as it now stands.
      const copy = await loadBoardState(trx, boardId, principal);
      assertWithinBoardLimits(measureBoard(toBoardDocument(copy!)));
      await recordStateChange(trx, { principal, history, before: null, after: copy! });
    }),
  );
  return boardId;
}

/** PATCH /api/boards/{id}/name: full access; 409 when another board has the name in any case. Version unchanged. */
export async function renameBoard(db: Db, principal: Principal, boardId: string, name: string, history: HistoryContext): Promise<void> {
  await withNameConflictAs409(() =>
    db.transaction(async (trx) => {
      await assertBoardAccess(trx, boardId, principal, 'full');
      await assertBoardNameAvailable(trx, name, boardId);
      await changeBoardFields(trx, boardId, { name }, principal, history);
    }),
  );
}

/**
 * PATCH /api/boards/{id}/visibility: full access; a server-wide (mobile) home board cannot be made private
 * (400 `Cannot make home board private`). Version unchanged.
 */
export async function changeBoardVisibility(
  db: Db,
  principal: Principal,
  boardId: string,
  visibility: 'public' | 'private',
  history: HistoryContext,
): Promise<void> {
  await db.transaction(async (trx) => {
    await assertBoardAccess(trx, boardId, principal, 'full');
    if (visibility === 'private') {
      // Settings lock first (the order every settings-and-board transaction uses).
      const settings = await lockServerBoardSettings(trx, 'share');
      if (settings.homeBoardId === boardId || settings.mobileHomeBoardId === boardId) throw badRequest('Cannot make home board private');
    }
    await changeBoardFields(trx, boardId, { isPublic: visibility === 'public' }, principal, history);
  });
}

const blankToNullColumns = new Set(['pageTitle', 'metaTitle', 'logoImageUrl', 'faviconImageUrl', 'backgroundImageUrl', 'iconColor', 'webSearchUrl']);

/** Whitespace-only text becomes null (SET-1); everything else is stored as sent. */
export function normalizeSettingsPatch(patch: Partial<Record<keyof BoardSettings, unknown>>): Partial<BoardSettings> {
  const normalized: Record<string, unknown> = {};
  for (const column of boardSettingsColumns) {
    if (!(column in patch) || patch[column] === undefined) continue;
    const value = patch[column];
    normalized[column] = blankToNullColumns.has(column) && typeof value === 'string' && value.trim() === '' ? null : value;
  }
  return normalized as Partial<BoardSettings>;
}

/** PATCH /api/boards/{id}/settings: modify access; writes the supplied settings only. Version unchanged. */
export async function updateBoardSettings(
  db: Db,
  principal: Principal,
  boardId: string,
  patch: Partial<Record<keyof BoardSettings, unknown>>,
  history: HistoryContext,
): Promise<void> {
  const normalized = normalizeSettingsPatch(patch);
  if (Object.keys(normalized).length === 0) throw badRequest('No settings to update');
  assertBoardSettings(normalized, '/body');
  await db.transaction(async (trx) => {
    await assertBoardAccess(trx, boardId, principal, 'modify');
    await changeBoardFields(trx, boardId, normalized, principal, history);
  });
}

/** PATCH /api/boards/{id}/home and /mobile-home: view access; sets the caller's own pointer. */
export async function setHomeBoard(db: Db, principal: Principal, boardId: string, which: 'desktop' | 'mobile'): Promise<void> {
  await db.transaction(async (trx) => {
    await assertBoardAccess(trx, boardId, principal, 'view');
    try {
      await User.query(trx)
        .findById(principal.userId)
        .patch(which === 'desktop' ? { homeBoardId: boardId } : { mobileHomeBoardId: boardId });
    } catch (error) {
      // The board was deleted after the access check.
      if (isForeignKeyViolation(error)) throw boardNotFound();
      throw error;
    }
  });
}

/**
 * The caller's home board (BOARD-9, NAV-1): its own, else its groups', else the server's (SET-2), the mobile ones
 * first on a phone; 404 `Board not found` when none is set. Whether the caller may view it is the read's own check.
 */
export async function homeBoardId(db: Db, principal: Principal | null, device: 'desktop' | 'mobile' = 'desktop'): Promise<string> {
  const id = resolveHomeBoard(await loadHomeCandidates(db, principal), device);
  if (!id) throw boardNotFound();
  return id;
}

/**
 * DELETE /api/boards/{id}: full access; one transaction that clears the server-wide home pointers naming the
 * board and deletes it (the foreign keys cascade to its contents and grants and null users'/groups' pointers).
 * With If-Match the board is locked and checked as every board write does (412, nothing deleted, on mismatch).
 */
export async function deleteBoard(db: Db, principal: Principal, boardId: string, options: { ifMatch?: string } = {}): Promise<void> {
  await db.transaction(async (trx) => {
    await assertBoardAccess(trx, boardId, principal, 'full');
    if (options.ifMatch !== undefined) await lockAndLoad(trx, boardId, principal, { bumpVersion: false, ifMatch: options.ifMatch });
    await clearServerHomeBoard(trx, boardId);
    const deleted = await Board.query(trx).deleteById(boardId);
    if (deleted === 0) throw boardNotFound();
  });
}

/**
 * Changes board fields (name, visibility, settings) and records the change in the board's history (HIST-1): the
 * row is locked and read first, so the entry knows the values it replaces.
 */
async function changeBoardFields(
  trx: Db,
  boardId: string,
  columns: Record<string, unknown>,
  principal: Principal,
  history: HistoryContext,
): Promise<void> {
  const before = await Board.query(trx).findById(boardId).forUpdate().select(Object.keys(columns)).castTo<Record<string, unknown> | undefined>();
  if (!before) throw boardNotFound();
  await touchBoard(trx, boardId, columns);
  await recordFieldChange(trx as Knex.Transaction, { boardId, principal, history, before, after: columns });
}

/** The creation entry of a new board's history (HIST-1): the board as it was created. */
async function recordCreation(trx: Db, boardId: string, principal: Principal, history: HistoryContext): Promise<void> {
  const created = await loadBoardState(trx, boardId, principal);
  await recordStateChange(trx as Knex.Transaction, { principal, history, before: null, after: created! });
}

/** Updates board columns and bumps the internal revision (never `version`); 404 when the board vanished. */
export async function touchBoard(trx: Db, boardId: string, columns: Record<string, unknown>): Promise<void> {
  const updated = await Board.query(trx)
    .findById(boardId)
    .patch({ ...columns, revision: trx.raw('revision + 1'), updatedAt: trx.fn.now() });
  if (updated === 0) throw boardNotFound();
}

function freshIds(rows: { id: string }[]): Map<string, string> {
  return new Map(rows.map((row) => [row.id, newId()]));
}

async function insertAll(trx: Db, model: typeof BaseModel, rows: Record<string, unknown>[]): Promise<void> {
  // Chunks keep each statement well under PostgreSQL's bind-parameter limit; plain rows through the model's knex.
  for (let i = 0; i < rows.length; i += 500) await model.table(trx).insert(rows.slice(i, i + 500));
}
