/**
 * The board store: the queries that load a board's rows and the statements that apply a plan. Every write runs
 * inside the caller's transaction, whose first statement is lockBoardForWrite. A fixed number of statements per
 * plan whatever the board's size: rows travel as one jsonb parameter (jsonb_to_recordset), never one bind
 * parameter per row.
 */
import type { Knex } from 'knex';
import { conflict, notFound } from '../../core/errors';
import { whereAmong } from '../../db/idList';
import { BaseModel, Board, BoardGroupPermission, BoardUserPermission, IntegrationItem, Item, ItemLayout, Layout, Section, SectionCollapseState, SectionLayout, User } from '../../db/models';
import { assignments, columnList, matching, recordset } from '../../db/models/sql';
import { preparedStatement } from '../../db/prepared';
import { emailReaderOf, type Principal } from '../../identity/principal';
import type { BoardPermissionLevel } from '../access';
import type { ContentWrites } from './contentPlan';
import type { LayoutPlan } from './layoutPlan';
import type { Replacement } from './replacement';
import type { BoardState } from './model';
import type { BindingRow, ItemLayoutRow, ItemRow, LayoutRow, SectionLayoutRow, SectionRow } from './types';

export const versionConflictMessage = 'This board was modified by another request. Reload the latest board and retry.';

/** A board's rows without what belongs to a caller: what the state cache keeps (stateCache.ts). */
export type BoardContentState = Omit<BoardState, CallerPart>;
type CallerPart = 'collapsedSectionIds' | 'userPermissions' | 'groupPermissions' | 'reader';

/** The board's rows of a state, without the caller's parts. */
export function contentOf(state: BoardState): BoardContentState {
  const { collapsedSectionIds: _c, userPermissions: _u, groupPermissions: _g, reader: _r, ...content } = state;
  return content;
}

/**
 * Loads the board's rows in seven queries whatever its size; null when the board does not exist. Works on the
 * database or inside a transaction (pass the transaction). Ids are ordered bytewise (COLLATE "C"), so the order
 * does not depend on the database's locale. `inserted`: the board was inserted in the transaction `q`, so that no
 * other row can name it yet; only its own row is read.
 */
export async function loadBoardContent(q: Knex, boardId: string, options: { inserted?: boolean } = {}): Promise<BoardContentState | null> {
  const board = await Board.table(q)
    .leftJoin(User.tableName, User.col('id'), Board.col('creatorId'))
    .where(Board.col('id'), boardId)
    .first(Board.col('*'), `${User.col('username')} as creatorUsername`, `${User.col('email')} as creatorEmail`);
  if (!board) return null;
  const { creatorUsername, creatorEmail, ...boardRow } = board;
  const creator = creatorUsername != null && board.creatorId ? { id: board.creatorId, username: creatorUsername, email: creatorEmail ?? null } : null;
  if (options.inserted) return { board: boardRow, creator, layouts: [], sections: [], sectionLayouts: [], items: [], itemLayouts: [], bindings: [] };
  const layouts: LayoutRow[] = await Layout.table(q).where({ boardId }).orderByRaw('breakpoint asc, id collate "C" asc');
  const sections: SectionRow[] = await Section.table(q).where({ boardId }).orderByRaw('y_offset asc nulls last, id collate "C" asc');
  const sectionLayouts: SectionLayoutRow[] = await SectionLayout.table(q)
    .join(Section.tableName, Section.col('id'), SectionLayout.col('sectionId'))
    .where(Section.col('boardId'), boardId)
    .select(SectionLayout.col('*'));
  const items: ItemRow[] = await Item.table(q).where({ boardId }).orderByRaw('id collate "C" asc');
  const itemLayouts: ItemLayoutRow[] = await ItemLayout.table(q)
    .join(Item.tableName, Item.col('id'), ItemLayout.col('itemId'))
    .where(Item.col('boardId'), boardId)
    .select(ItemLayout.col('*'));
  const bindings: BindingRow[] = await IntegrationItem.table(q)
    .join(Item.tableName, Item.col('id'), IntegrationItem.col('itemId'))
    .where(Item.col('boardId'), boardId)
    .select(IntegrationItem.col('itemId'), IntegrationItem.col('integrationId'))
    .orderByRaw(`${IntegrationItem.tableName}.integration_id collate "C" asc`);
  return {
    board: boardRow,
    creator,
    layouts,
    sections,
    sectionLayouts,
    items,
    itemLayouts,
    bindings,
  };
}

/**
 * The caller's own parts of a board: its collapsed category sections and its own permission rows, in one query (a
 * write reads them under its lock, so every round trip saved there is one less per write), and whether it sees the
 * creator's e-mail (PRIV-1).
 */
export async function loadCallerRows(q: Knex, boardId: string, principal: Principal | null, options: { inserted?: boolean } = {}): Promise<Pick<BoardState, CallerPart>> {
  if (options.inserted) return { collapsedSectionIds: new Set(), userPermissions: [], groupPermissions: [], reader: emailReaderOf(principal) };
  const userId = principal?.userId ?? '';
  const groupIds = principal && principal.groupIds.length > 0 ? principal.groupIds : [''];
  const rows: { kind: 'collapsed' | 'group' | 'user'; id: string | null; permission: BoardPermissionLevel | null }[] = await q
    .select(q.raw(`'collapsed' as kind`), `${SectionCollapseState.col('sectionId')} as id`, q.raw('NULL as permission'))
    .from(SectionCollapseState.tableName)
    .join(Section.tableName, Section.col('id'), SectionCollapseState.col('sectionId'))
    .where(Section.col('boardId'), boardId)
    .andWhere(SectionCollapseState.col('userId'), userId)
    .andWhere(SectionCollapseState.col('collapsed'), true)
    .unionAll((union) => {
      union.select(q.raw(`'user'`), q.raw('NULL'), 'permission').from(BoardUserPermission.tableName).where({ boardId, userId });
    })
    .unionAll((union) => {
      union.select(q.raw(`'group'`), 'groupId', 'permission').from(BoardGroupPermission.tableName).where({ boardId }).whereIn('groupId', groupIds);
    })
    .orderBy([{ column: 'kind' }, { column: 'id' }, { column: 'permission' }]);
  const of = (kind: string) => rows.filter((row) => row.kind === kind);
  return {
    collapsedSectionIds: new Set(of('collapsed').map((row) => row.id as string)),
    userPermissions: of('user').map((row) => ({ permission: row.permission as BoardPermissionLevel })),
    groupPermissions: of('group').map((row) => ({ groupId: row.id as string, permission: row.permission as BoardPermissionLevel })),
    reader: emailReaderOf(principal),
  };
}

/** Everything stored about one board as the caller sees it, in eight queries; null when the board does not exist. */
export async function loadBoardState(q: Knex, boardId: string, principal: Principal | null): Promise<BoardState | null> {
  const content = await loadBoardContent(q, boardId);
  return content && { ...content, ...(await loadCallerRows(q, boardId, principal)) };
}

/**
 * Loads the board's rows from one snapshot: the eight reads run in a read-only REPEATABLE READ transaction, so a
 * concurrent write can never show half of itself. 404 `Board not found` when the board does not exist.
 */
export async function loadBoardSnapshot(db: Knex, boardId: string, principal: Principal | null): Promise<BoardState> {
  const state = await db.transaction((trx) => loadBoardState(trx, boardId, principal), { isolationLevel: 'repeatable read', readOnly: true });
  if (!state) throw notFound('Board not found');
  return state;
}

/** The caller's collapsed category sections of the board, as a stable key (for the document cache). */
export async function loadCollapsedKey(db: Knex, boardId: string, userId: string): Promise<string> {
  const rows: { sectionId: string }[] = await SectionCollapseState.table(db)
    .join(Section.tableName, Section.col('id'), SectionCollapseState.col('sectionId'))
    .where({ [Section.col('boardId')]: boardId, [SectionCollapseState.col('userId')]: userId, [SectionCollapseState.col('collapsed')]: true })
    .select(SectionCollapseState.col('sectionId'))
    .orderBy(SectionCollapseState.col('sectionId'))
    .options(preparedStatement('tessera_board_collapsed'));
  return rows.map((row) => row.sectionId).join(',');
}

/**
 * The first statement of every board write: bumps the internal revision (and the version when the version
 * table says so, CONC-5), which takes the board's row lock for the rest of the transaction. With expectedVersion
 * the update is guarded (`AND version = ?`) and the decision rests on the matched-row count only: 0 rows is the
 * CONC-2 409 (CONC-3). The database decides races between instances.
 */
export async function lockBoardForWrite(
  trx: Knex.Transaction,
  boardId: string,
  options: { bumpVersion: boolean; expectedVersion?: number },
): Promise<{ revision: number; version: number }> {
  const changes: Record<string, unknown> = { revision: trx.raw('revision + 1'), updatedAt: trx.fn.now() };
  if (options.bumpVersion) changes.version = trx.raw('version + 1');
  const query = Board.table(trx).where({ id: boardId });
  if (options.expectedVersion !== undefined) query.andWhere('version', options.expectedVersion);
  const [locked] = await query.update(changes, ['revision', 'version']);
  if (!locked) throw options.expectedVersion !== undefined ? conflict(versionConflictMessage) : notFound('Board not found');
  return locked;
}

/** A row found by findExistingElementIds: its id, its board, and whether it is an item or a section. */
export interface ExistingElement {
  id: string;
  boardId: string;
  element: 'item' | 'section';
}

/** Rows of the given item and section ids, on any board (PUT-4: ids are primary keys across the instance). */
export async function findExistingElementIds(q: Knex, itemIds: readonly string[], sectionIds: readonly string[]): Promise<ExistingElement[]> {
  if (itemIds.length === 0 && sectionIds.length === 0) return [];
  return q
    .select('id', 'boardId', q.raw(`'item' as element`))
    .from(Item.tableName)
    .modify(whereAmong, 'id', itemIds)
    .unionAll((union) => {
      union.select('id', 'boardId', q.raw(`'section' as element`)).from(Section.tableName).modify(whereAmong, 'id', sectionIds);
    });
}

/** Rows handed to jsonb_to_recordset as one parameter, so a statement's text never depends on the row count. */
const json = (rows: unknown[]) => JSON.stringify(rows);

const sectionRow = (s: { id: string; kind: string; xOffset: number | null; yOffset: number | null; name: string | null; options: unknown }) => ({
  id: s.id,
  kind: s.kind,
  x_offset: s.xOffset,
  y_offset: s.yOffset,
  name: s.name,
  options: s.options,
});
const itemRow = (i: { id: string; kind: string; options: unknown; advancedOptions: unknown }) => ({
  id: i.id,
  kind: i.kind,
  options: i.options,
  advanced_options: i.advancedOptions,
});
const itemPositionRow = (p: ItemLayoutRow) => ({
  item_id: p.itemId,
  layout_id: p.layoutId,
  section_id: p.sectionId,
  x_offset: p.xOffset,
  y_offset: p.yOffset,
  width: p.width,
  height: p.height,
});
const sectionPositionRow = (p: SectionLayoutRow) => ({
  section_id: p.sectionId,
  layout_id: p.layoutId,
  parent_section_id: p.parentSectionId,
  x_offset: p.xOffset,
  y_offset: p.yOffset,
  width: p.width,
  height: p.height,
});
const bindingRow = (b: BindingRow) => ({ item_id: b.itemId, integration_id: b.integrationId });

/** Columns of the recordsets: the JSON keys of the rows above are these columns' names. */
const sectionColumns = ['id', 'kind', 'xOffset', 'yOffset', 'name', 'options'];
const itemColumns = ['id', 'kind', 'options', 'advancedOptions'];
const layoutColumns = ['id', 'name', 'columnCount', 'breakpoint'];
const positionColumns = ['xOffset', 'yOffset', 'width', 'height'];
const itemPositionColumns = ['itemId', 'layoutId', 'sectionId', ...positionColumns];
const sectionPositionColumns = ['sectionId', 'layoutId', 'parentSectionId', ...positionColumns];
const itemPositionKey = ['itemId', 'layoutId'];
const sectionPositionKey = ['sectionId', 'layoutId'];
const bindingColumns = ['itemId', 'integrationId'];

/** `INSERT INTO table (columns) SELECT v.columns FROM recordset`, with the board id first when given. */
function insertRows(model: typeof BaseModel, columns: string[], withBoard: boolean): string {
  const target = withBoard ? ['id', 'boardId', ...columns.slice(1)] : columns;
  const values = withBoard ? `v.id, ?, ${columnList(model, columns.slice(1), 'v.')}` : columnList(model, columns, 'v.');
  return `INSERT INTO ${model.tableName} (${columnList(model, target)})
     SELECT ${values}
     FROM ${recordset(model, columns)}`;
}

/** `UPDATE table AS alias SET … FROM recordset WHERE key matches` (and the board's, when `onBoard`). */
function updateRows(model: typeof BaseModel, alias: string, key: string[], columns: string[], onBoard: boolean): string {
  return `UPDATE ${model.tableName} AS ${alias} SET ${assignments(model, columns.filter((c) => !key.includes(c)))}
     FROM ${recordset(model, columns)}
     WHERE ${matching(model, key, alias)}${onBoard ? ` AND ${alias}.${model.column('boardId')} = ?` : ''}`;
}

/** Inserts positions, or replaces the stored position of the same (element, layout). */
function upsertRows(model: typeof BaseModel, key: string[], columns: string[]): string {
  return `${insertRows(model, columns, false)}
     ON CONFLICT (${columnList(model, key)}) DO UPDATE SET ${assignments(model, columns.filter((c) => !key.includes(c)), 'excluded')}`;
}

/** `DELETE FROM table AS alias USING recordset WHERE key matches`. */
function deleteRows(model: typeof BaseModel, alias: string, key: string[]): string {
  return `DELETE FROM ${model.tableName} AS ${alias} USING ${recordset(model, key)}
     WHERE ${matching(model, key, alias)}`;
}

/** The set-based statements, built once from the models' tables and columns (MODEL-5). */
const sql = {
  insertSections: insertRows(Section, sectionColumns, true),
  updateSections: updateRows(Section, 's', ['id'], sectionColumns, true),
  insertSectionPositions: insertRows(SectionLayout, sectionPositionColumns, false),
  updateSectionPositions: updateRows(SectionLayout, 'sl', sectionPositionKey, sectionPositionColumns, false),
  upsertSectionPositions: upsertRows(SectionLayout, sectionPositionKey, sectionPositionColumns),
  deleteSectionPositions: deleteRows(SectionLayout, 'sl', sectionPositionKey),
  deleteItemPositions: deleteRows(ItemLayout, 'il', itemPositionKey),
  insertItems: insertRows(Item, itemColumns, true),
  updateItems: updateRows(Item, 'i', ['id'], itemColumns, true),
  insertItemPositions: insertRows(ItemLayout, itemPositionColumns, false),
  updateItemPositions: updateRows(ItemLayout, 'il', itemPositionKey, itemPositionColumns, false),
  upsertItemPositions: upsertRows(ItemLayout, itemPositionKey, itemPositionColumns),
  insertBindings: insertRows(IntegrationItem, bindingColumns, false),
  deleteBindings: deleteRows(IntegrationItem, 'ii', bindingColumns),
  insertLayouts: insertRows(Layout, layoutColumns, true),
  updateLayouts: updateRows(Layout, 'l', ['id'], layoutColumns, true),
};

/** One statement for a batch of rows; none for an empty batch. */
async function batch(trx: Knex.Transaction, rows: unknown[], statement: string, bindings: (rowsJson: string) => Knex.RawBinding[]): Promise<void> {
  if (rows.length > 0) await trx.raw(statement, bindings(json(rows)));
}

/**
 * Applies a content plan's writes (PUT-3..8, PUT-15): inserts first, then updates, removals last (bindings and
 * positions of kept elements, items, cascading to their positions and bindings, sections, cascading to the
 * positions inside them).
 */
export async function applyContentWrites(trx: Knex.Transaction, boardId: string, writes: ContentWrites): Promise<void> {
  await batch(trx, writes.sections.insert.map(sectionRow), sql.insertSections, (rows) => [boardId, rows]);
  await batch(trx, writes.sectionPositions.insert.map(sectionPositionRow), sql.insertSectionPositions, (rows) => [rows]);
  await batch(trx, writes.items.insert.map(itemRow), sql.insertItems, (rows) => [boardId, rows]);
  await batch(trx, writes.itemPositions.insert.map(itemPositionRow), sql.insertItemPositions, (rows) => [rows]);
  await batch(trx, writes.bindings.insert.map(bindingRow), sql.insertBindings, (rows) => [rows]);

  await batch(trx, writes.items.update.map(itemRow), sql.updateItems, (rows) => [rows, boardId]);
  await batch(trx, writes.itemPositions.update.map(itemPositionRow), sql.updateItemPositions, (rows) => [rows]);
  await batch(trx, writes.sections.update.map(sectionRow), sql.updateSections, (rows) => [rows, boardId]);
  await batch(trx, writes.sectionPositions.update.map(sectionPositionRow), sql.updateSectionPositions, (rows) => [rows]);

  await batch(trx, writes.bindings.delete.map(bindingRow), sql.deleteBindings, (rows) => [rows]);
  await batch(trx, writes.itemPositions.delete.map((p) => ({ item_id: p.itemId, layout_id: p.layoutId })), sql.deleteItemPositions, (rows) => [rows]);
  await batch(trx, writes.sectionPositions.delete.map((p) => ({ section_id: p.sectionId, layout_id: p.layoutId })), sql.deleteSectionPositions, (rows) => [rows]);
  if (writes.items.delete.length > 0) await Item.table(trx).where({ boardId }).modify(whereAmong, 'id', writes.items.delete).del();
  if (writes.sections.delete.length > 0) await Section.table(trx).where({ boardId }).modify(whereAmong, 'id', writes.sections.delete).del();
}

/** The rows that pass `test`, and those that do not. */
function partition<T>(rows: readonly T[], test: (row: T) => boolean): [T[], T[]] {
  const passed: T[] = [];
  const failed: T[] = [];
  for (const row of rows) (test(row) ? passed : failed).push(row);
  return [passed, failed];
}

/**
 * Applies a layout plan (LAYOUT-1..4): new layouts, the regenerated positions (inserted or replacing the stored
 * ones), changed layouts, then the removed layouts with every position recorded against them.
 */
export async function applyLayoutPlan(trx: Knex.Transaction, boardId: string, plan: LayoutPlan): Promise<void> {
  const layoutRow = (l: { id: string; name: string; columnCount: number; breakpoint: number }) => ({
    id: l.id,
    name: l.name,
    column_count: l.columnCount,
    breakpoint: l.breakpoint,
  });
  await batch(trx, plan.insertLayouts.map(layoutRow), sql.insertLayouts, (rows) => [boardId, rows]);
  // Positions in a new layout cannot collide with stored ones: a plain insert, cheaper than the upsert's speculative
  // insertion (a new layout on a large board inserts one position per element).
  const inNewLayout = new Set(plan.insertLayouts.map((layout) => layout.id));
  const [newItemPositions, regeneratedItemPositions] = partition(plan.itemPositions, (p) => inNewLayout.has(p.layoutId));
  const [newSectionPositions, regeneratedSectionPositions] = partition(plan.sectionPositions, (p) => inNewLayout.has(p.layoutId));
  await batch(trx, newItemPositions.map(itemPositionRow), sql.insertItemPositions, (rows) => [rows]);
  await batch(trx, regeneratedItemPositions.map(itemPositionRow), sql.upsertItemPositions, (rows) => [rows]);
  await batch(trx, newSectionPositions.map(sectionPositionRow), sql.insertSectionPositions, (rows) => [rows]);
  await batch(trx, regeneratedSectionPositions.map(sectionPositionRow), sql.upsertSectionPositions, (rows) => [rows]);
  await batch(trx, plan.updateLayouts.map(layoutRow), sql.updateLayouts, (rows) => [rows, boardId]);
  if (plan.deleteLayoutIds.length > 0) await Layout.table(trx).where({ boardId }).modify(whereAmong, 'id', plan.deleteLayoutIds).del();
}

/**
 * Applies a replacement (replacement.ts): layouts first (new ones, changed ones, then the removed ones with what is
 * recorded against them), then the content rows, then the board columns. Returns the board's revision after it:
 * changing columns moves it once more (migration 0003's trigger).
 */
export async function applyReplacement(trx: Knex.Transaction, boardId: string, replacement: Replacement, revision: number): Promise<number> {
  await applyLayoutPlan(trx, boardId, replacement.layouts);
  await applyContentWrites(trx, boardId, replacement.content);
  if (Object.keys(replacement.columns).length === 0) return revision;
  const [row] = await Board.table(trx).where({ id: boardId }).update(replacement.columns, ['revision']);
  return row.revision;
}
