/**
 * POST /api/boards/{id}/restore (HIST-6): puts layouts, sections, items, positions, bindings and settings back as
 * they were after a revision, as one guarded write (a version bump, a new history entry), answering the board; a
 * restore that changes nothing writes nothing (no entry, no version or revision bump).
 */
import type { Knex } from 'knex';
import { placedAppIds, recordAppPlacements } from '../../apps/placements';
import { whereAmong } from '../../db/idList';
import { assertBoardAccess } from '../access';
import { boardSettingsColumns } from '../settings';
import { assertCanBind } from '../document/bindings';
import type { BoardState } from '../document/model';
import { replacementFor, replacementWritesAnything, stateAfterReplacement } from '../document/replacement';
import { assertIdsFree, BoardWrite, DocumentResult, inBoardTransaction, lockAndLoad, resultAfterWrite, RolledBack, unlessRolledBack } from '../document/save';
import { applyReplacement } from '../document/store';
import { recordStateChange } from './record';
import { revisionState } from './history';
import type { HistorySummary } from './summary';
import { independentReads } from '../../db/independentReads';
import { App, Integration } from '../../db/models';

export interface RestoreResult extends DocumentResult {
  /**
   * What the revision held that no longer exists: bindings of deleted integrations, app widgets of deleted apps, and
   * every deleted app the revision's widgets named (an app widget's app, a bookmarks widget's entries).
   */
  dropped: Required<NonNullable<HistorySummary['dropped']>>;
  /** False when the board already was as the revision left it: nothing written (HIST-6), nothing audited. */
  changed: boolean;
}

/**
 * The target of a restore: the revision's content and settings over the board as it stands (name, visibility and
 * version stay), without the bindings of integrations and the app widgets of apps deleted since. The app ids are
 * the ones the plan and the placements read (`placedAppIds`): a bookmarks widget naming a deleted app is put back as
 * it was (its other entries stand), and that app is reported with the others.
 */
async function restorable(trx: Knex, current: BoardState, revision: BoardState): Promise<{ target: BoardState; dropped: RestoreResult['dropped'] }> {
  const integrationIds = [...new Set(revision.bindings.map((b) => b.integrationId))];
  const appIds = [...new Set(revision.items.flatMap(placedAppIds))];
  const [integrations, apps] = await independentReads(trx, [
    () => Integration.query(trx).modify(whereAmong, 'id', integrationIds).select('id') as unknown as Promise<{ id: string }[]>,
    () => App.query(trx).modify(whereAmong, 'id', appIds).select('id') as unknown as Promise<{ id: string }[]>,
  ]);
  const liveIntegrations = new Set(integrations.map((row) => row.id));
  const liveApps = new Set(apps.map((row) => row.id));
  const goneAppIds = appIds.filter((id) => !liveApps.has(id)).sort();
  const droppedItems = new Set(revision.items.filter((i) => i.kind === 'app' && placedAppIds(i).some((id) => !liveApps.has(id))).map((i) => i.id));
  const board = { ...current.board };
  for (const column of boardSettingsColumns) board[column] = revision.board[column];
  const target: BoardState = {
    ...revision,
    board,
    items: revision.items.filter((i) => !droppedItems.has(i.id)),
    itemLayouts: revision.itemLayouts.filter((p) => !droppedItems.has(p.itemId)),
    bindings: revision.bindings.filter((b) => liveIntegrations.has(b.integrationId) && !droppedItems.has(b.itemId)),
  };
  return { target, dropped: { integrationIds: integrationIds.filter((id) => !liveIntegrations.has(id)), itemIds: [...droppedItems], appIds: goneAppIds } };
}

export async function restoreRevision(db: Knex, options: BoardWrite & { revision: number; expectedVersion?: number }): Promise<RestoreResult> {
  const { boardId, principal } = options;
  await assertBoardAccess(db, boardId, principal, 'modify');
  return unlessRolledBack(() => inBoardTransaction(db, options, async (trx) => {
    // The version moves with the writes (below), so that a restore that changes nothing writes nothing.
    const current = await lockAndLoad(trx, boardId, principal, { ...options, bumpVersion: false });
    const before = current;
    const { target, dropped } = await restorable(trx, current, await revisionState(trx, boardId, options.revision, before));
    const replacement = replacementFor(current, target, boardSettingsColumns);
    if (!replacementWritesAnything(replacement)) throw new RolledBack<RestoreResult>({ ...resultAfterWrite(current, current), dropped, changed: false });
    replacement.columns.version = current.board.version + 1;
    // Elements the revision had that are not on the board now are new to it: their ids must be free (PUT-4) and
    // their bindings are new bindings (BIND-2).
    await assertIdsFree(trx, boardId, replacement.content.items.insert.map((i) => i.id), replacement.content.sections.insert.map((s) => s.id));
    const boundNow = new Set(current.bindings.map((b) => b.integrationId));
    await assertCanBind(trx, principal, [...new Set(target.bindings.map((b) => b.integrationId))].filter((id) => !boundNow.has(id)));
    const computed = stateAfterReplacement(current, replacement);
    const result = resultAfterWrite(current, computed);
    const revision = await applyReplacement(trx, boardId, replacement, current.board.revision);
    const after = { ...computed, board: { ...computed.board, revision } };
    await recordAppPlacements(trx, principal, [...replacement.content.items.insert, ...replacement.content.items.update]);
    await recordStateChange(trx, { principal, history: options.history, before, after, dropped: droppedOrUndefined(dropped) });
    return { result: { ...result, dropped, changed: true }, after, answered: result };
  }));
}

const droppedOrUndefined = (dropped: RestoreResult['dropped']) => (dropped.integrationIds.length + dropped.itemIds.length + dropped.appIds.length > 0 ? dropped : undefined);

