import type { Knex } from 'knex';
import { badRequest, forbidden } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { usableIntegrationIds } from '../../integrations/access';
import { listIds, shownIds } from './validate';
import { whereAmong } from '../../db/idList';
import { HistoryContext, recordStateChange } from '../history/record';
import { emptyWrites } from './contentPlan';
import { stateAfterContentWrites } from './stateAfter';
import { loadBoardState, lockBoardForWrite } from './store';
import { Integration, IntegrationItem, Item } from '../../db/models';

/** 400 `Invalid integration IDs: <ids>` for ids that are not integrations. One query, also for an empty list. */
export async function assertIntegrationsExist(q: Knex, ids: readonly string[]): Promise<void> {
  const unique = [...new Set(ids)];
  const found: { id: string }[] = await Integration.query(q).modify(whereAmong, 'id', unique).select('id');
  const known = new Set(found.map((row) => row.id));
  const missing = unique.filter((id) => !known.has(id));
  if (missing.length > 0) throw badRequest(`Invalid integration IDs: ${listIds(missing)}`, { integrationIds: shownIds(missing), count: missing.length });
}

/** BIND-1: the 403 of a write binding integrations the caller may not use. */
export const noIntegrationAccess = (refused: readonly string[]) =>
  forbidden(`No access to integrations: ${listIds(refused)}`, { integrationIds: shownIds(refused), count: refused.length });

/**
 * BIND-1..5: a binding grants access to the integration's data, so every id the write adds on top of
 * `alreadyBound` (the ids bound anywhere on the board) needs use access (a direct or group grant, or a global
 * integration permission; src/integrations/access.ts). 403 `No access to integrations: <ids>` otherwise.
 */
export async function assertCanBind(
  q: Knex,
  principal: Principal,
  requested: readonly string[],
  alreadyBound: ReadonlySet<string> = new Set(),
): Promise<void> {
  const added = [...new Set(requested)].filter((id) => !alreadyBound.has(id));
  if (added.length === 0) return;
  const usable = await usableIntegrationIds(q, principal, added);
  const refused = added.filter((id) => !usable.has(id));
  if (refused.length > 0) throw noIntegrationAccess(refused);
}

/**
 * Before an integration is deleted (its bindings go with it by cascade): on every board that binds it, the board is
 * locked and the removal of those bindings recorded in the board's history (HIST-1), in the deletion's transaction.
 */
export async function recordIntegrationUnbound(trx: Knex.Transaction, integrationId: string, principal: Principal, history: HistoryContext): Promise<void> {
  const bound: { boardId: string; itemId: string }[] = await IntegrationItem.table(trx)
    .join(Item.tableName, Item.col('id'), IntegrationItem.col('itemId'))
    .where(IntegrationItem.col('integrationId'), integrationId)
    .select(Item.col('boardId'), IntegrationItem.col('itemId'));
  const boardIds = [...new Set(bound.map((row) => row.boardId))].sort();
  for (const boardId of boardIds) {
    await lockBoardForWrite(trx, boardId, { bumpVersion: false });
    const before = await loadBoardState(trx, boardId, principal);
    if (!before) continue;
    const writes = emptyWrites();
    writes.bindings.delete = bound.filter((row) => row.boardId === boardId).map((row) => ({ itemId: row.itemId, integrationId }));
    await recordStateChange(trx, { principal, history, before, after: stateAfterContentWrites(before, writes) });
  }
}
