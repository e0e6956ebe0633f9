import type { Knex } from 'knex';
import type { components } from '../../../generated/api';
import { recordAppPlacements } from '../../apps/placements';
import { newId } from '../../db/ids';
import { badRequest, notFound } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { widgetDefaultSize } from '../../widgets/registry';
import { assertBoardAccess } from '../access';
import { assertCanBind, assertIntegrationsExist } from './bindings';
import { maxGridOffset, Occupancy } from './grid';
import { assertWithinBoardLimits, BoardMeasures, contentBytesOf, measureBoard } from './limits';
import { BoardState, loadBoardState, normalizeAdvancedOptions, readBoardDocument, toBoardDocument } from './read';
import { DocumentResult, lockBoardForWrite, saveBoardContent } from './save';
import type { BoardItem, ItemPosition } from './types';
import { assertStorableJson } from './validate';

type AddItemRequest = components['schemas']['AddBoardItemRequest'];
type UpdateItemRequest = components['schemas']['UpdateBoardItemRequest'];

/**
 * Where POST /api/boards/items puts a widget (ADD-1, ADD-2, GRID-1): in the first section of kind empty by
 * yOffset, at the first free cell of each layout for the widget's default size (items of that section occupy
 * cells, dynamic sections do not). 400 when there is no such section or no cell.
 */
export function placeNewItem(state: BoardState, kind: string): ItemPosition[] {
  const target = state.sections
    .filter((section) => section.kind === 'empty')
    .sort((a, b) => (a.yOffset ?? 0) - (b.yOffset ?? 0) || a.id.localeCompare(b.id))[0];
  if (!target) throw badRequest('Board has no empty section to place items in');
  const size = widgetDefaultSize(kind);
  return state.layouts.map((layout) => {
    const grid = new Occupancy(layout.columnCount);
    for (const p of state.itemLayouts) {
      if (p.layoutId === layout.id && p.sectionId === target.id) grid.mark({ x: p.xOffset, y: p.yOffset, width: p.width, height: p.height });
    }
    const cell = grid.firstFree(size.width, size.height);
    if (!cell || cell.y > maxGridOffset) throw badRequest('Board section is full, no free grid position available');
    return { layoutId: layout.id, sectionId: target.id, xOffset: cell.x, yOffset: cell.y, ...size };
  });
}

/**
 * POST /api/boards/items: every check (board, integration ids, binding access, placement) before anything is
 * inserted, then one transaction. The version is not changed (the revision is).
 */
export async function addBoardItem(db: Knex, principal: Principal, request: AddItemRequest): Promise<string> {
  const { boardId, kind } = request;
  await assertBoardAccess(db, boardId, principal, 'modify');
  const integrationIds = [...new Set(request.integrationIds ?? [])];
  await assertIntegrationsExist(db, integrationIds);
  await assertCanBind(db, principal, integrationIds);
  const options = request.options ?? {};
  assertStorableJson(options, 'options');
  assertStorableJson(request.advancedOptions ?? {}, 'advancedOptions');
  return db.transaction(async (trx) => {
    await lockBoardForWrite(trx, boardId, { bumpVersion: false });
    const state = await loadBoardState(trx, boardId, principal);
    if (!state) throw notFound('Board not found');
    const positions = placeNewItem(state, kind);
    const itemId = newId();
    const advancedOptions = normalizeAdvancedOptions(request.advancedOptions);
    const item: BoardItem = { id: itemId, kind, options, integrationIds, advancedOptions, layouts: positions };
    const before = measureBoard(toBoardDocument(state));
    assertWithinBoardLimits(withItemAdded(before, item), () => before);
    await trx('items').insert({ id: itemId, boardId, kind, options: JSON.stringify(options), advancedOptions: JSON.stringify(advancedOptions) });
    if (positions.length > 0) await trx('item_layouts').insert(positions.map((p) => ({ itemId, ...p })));
    if (integrationIds.length > 0) await trx('integration_items').insert(integrationIds.map((integrationId) => ({ itemId, integrationId })));
    await recordAppPlacements(trx, principal, [{ id: itemId, kind, options }]);
    return itemId;
  });
}

/** The measures of a board after `item` is appended to its items. */
function withItemAdded(before: BoardMeasures, item: BoardItem): BoardMeasures {
  const separator = before.items > 0 ? 1 : 0;
  return { ...before, items: before.items + 1, contentBytes: before.contentBytes + separator + contentBytesOf(item) };
}

async function readForChange(db: Knex, boardId: string, principal: Principal) {
  const { document } = await readBoardDocument(db, boardId, principal, 'modify');
  return document;
}

/** PATCH /api/boards/{id}/items/{itemId}: one item changed, saved like PUT with the version just read. */
export async function updateBoardItem(
  db: Knex,
  options: { boardId: string; itemId: string; principal: Principal; changes: UpdateItemRequest; ifMatch?: string },
): Promise<DocumentResult> {
  const { boardId, itemId, principal, changes } = options;
  const document = await readForChange(db, boardId, principal);
  const item = document.items.find((candidate) => candidate.id === itemId);
  if (!item) throw notFound('Item not found');
  const updated: BoardItem = {
    ...item,
    options: changes.options ?? item.options,
    advancedOptions: changes.advancedOptions ? normalizeAdvancedOptions(changes.advancedOptions) : item.advancedOptions,
    integrationIds: changes.integrationIds ?? item.integrationIds,
    // Only existing positions change; entries for layouts the item has no position in are dropped.
    layouts: item.layouts.map((position) => changes.layouts?.find((entry) => entry.layoutId === position.layoutId) ?? position),
  };
  return saveBoardContent(db, {
    boardId,
    principal,
    content: { sections: document.sections, items: document.items.map((candidate) => (candidate.id === itemId ? updated : candidate)) },
    expectedVersion: document.version,
    ifMatch: options.ifMatch,
  });
}

/** DELETE /api/boards/{id}/items/{itemId}. */
export async function deleteBoardItem(
  db: Knex,
  options: { boardId: string; itemId: string; principal: Principal; ifMatch?: string },
): Promise<DocumentResult> {
  const { boardId, itemId, principal } = options;
  const document = await readForChange(db, boardId, principal);
  if (!document.items.some((item) => item.id === itemId)) throw notFound('Item not found');
  return saveBoardContent(db, {
    boardId,
    principal,
    content: { sections: document.sections, items: document.items.filter((item) => item.id !== itemId) },
    expectedVersion: document.version,
    ifMatch: options.ifMatch,
  });
}


