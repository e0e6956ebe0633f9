import type { Knex } from 'knex';
import type { components } from '../../../generated/api';
import { recordAppPlacements } from '../../apps/placements';
import { newId } from '../../db/ids';
import { badRequest, notFound } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { widgetDefaultSize } from '../../widgets/registry';
import { assertBoardAccess } from '../access';
import { assertCanBind, assertIntegrationsExist } from './bindings';
import { emptyWrites } from './contentPlan';
import { maxGridOffset, Occupancy } from './grid';
import { assertWithinBoardLimits, BoardMeasures, contentBytesOf, measureBoard } from './limits';
import { BoardState, itemDocumentOf, normalizeAdvancedOptions, readableSections } from './model';
import { BoardCaches, BoardWrite, changeBoardContent, DocumentResult, inBoardTransaction, lockAndLoad, measureState } from './save';
import { stateAfterContentWrites } from './stateAfter';
import { applyContentWrites } from './store';
import { HistoryContext, recordStateChange } from '../history/record';
import type { BoardItem, ItemPosition } from './types';
import { assertStorableJson, validateItemPositions, validateItemValues } from './validate';

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

/** The measures of a board after `item` is appended to its items. */
function withItemAdded(before: BoardMeasures, item: BoardItem): BoardMeasures {
  const separator = before.items > 0 ? 1 : 0;
  return { ...before, items: before.items + 1, contentBytes: before.contentBytes + separator + contentBytesOf(item) };
}

/**
 * POST /api/boards/items (ADD-1..4): every check (board, integration ids, binding access, placement, limits) before
 * anything is inserted, then one transaction. The version is not changed (the revision is).
 */
export async function addBoardItem(
  db: Knex,
  principal: Principal,
  request: AddItemRequest,
  context: { history: HistoryContext; caches?: BoardCaches },
): Promise<string> {
  const { boardId, kind } = request;
  await assertBoardAccess(db, boardId, principal, 'modify');
  const integrationIds = [...new Set(request.integrationIds ?? [])];
  await assertIntegrationsExist(db, integrationIds);
  await assertCanBind(db, principal, integrationIds);
  const options = request.options ?? {};
  assertStorableJson(options, 'options');
  assertStorableJson(request.advancedOptions ?? {}, 'advancedOptions');
  return inBoardTransaction(db, { caches: context.caches, principal }, async (trx) => {
    const state = await lockAndLoad(trx, boardId, principal, { bumpVersion: false, caches: context.caches });
    const positions = placeNewItem(state, kind);
    const item: BoardItem = { id: newId(), kind, options, integrationIds, advancedOptions: normalizeAdvancedOptions(request.advancedOptions), layouts: positions };
    const before = measureState(state);
    assertWithinBoardLimits(withItemAdded(before, item), () => before);
    const writes = emptyWrites();
    writes.items.insert.push({ id: item.id, kind, options, advancedOptions: item.advancedOptions });
    for (const p of positions) writes.itemPositions.insert.push({ itemId: item.id, ...p });
    for (const integrationId of integrationIds) writes.bindings.insert.push({ itemId: item.id, integrationId });
    await applyContentWrites(trx, boardId, writes);
    await recordAppPlacements(trx, principal, [item]);
    const after = stateAfterContentWrites(state, writes);
    await recordStateChange(trx, { principal, history: context.history, before: state, after });
    return { result: item.id, after };
  });
}

/** The item as the document shows it; 404 `Item not found` for an item not on the board (or of an unknown kind). */
function findItem(state: BoardState, itemId: string): BoardItem {
  const item = itemDocumentOf(state, itemId);
  if (!item) throw notFound('Item not found');
  return item;
}

/** PATCH /api/boards/{id}/items/{itemId} (ITEM-1): one item changed, saved like PUT. */
export async function updateBoardItem(
  db: Knex,
  options: BoardWrite & { itemId: string; changes: UpdateItemRequest },
): Promise<DocumentResult> {
  const { itemId, changes } = options;
  return changeBoardContent(db, options, (state) => {
    const item = findItem(state, itemId);
    const updated: BoardItem = {
      ...item,
      options: changes.options ?? item.options,
      advancedOptions: changes.advancedOptions ? normalizeAdvancedOptions(changes.advancedOptions) : item.advancedOptions,
      integrationIds: changes.integrationIds ?? item.integrationIds,
      // Only existing positions change; entries for layouts the item has no position in are dropped.
      layouts: item.layouts.map((position) => changes.layouts?.find((entry) => entry.layoutId === position.layoutId) ?? position),
    };
    // The checks a PUT of the board with this item replaced would make of it (the rest of the board is as stored).
    validateItemPositions([updated], new Set(readableSections(state).map((section) => section.id)));
    validateItemValues([updated]);
    return { items: [updated] };
  });
}

/** DELETE /api/boards/{id}/items/{itemId} (ITEM-2). */
export async function deleteBoardItem(db: Knex, options: BoardWrite & { itemId: string }): Promise<DocumentResult> {
  return changeBoardContent(db, options, (state) => {
    findItem(state, options.itemId);
    return { removedItemIds: [options.itemId] };
  });
}
