import { audited } from '../../observability/audit';
import type { HandlerMap } from '../../core/operation';
import { headerList, PreSerializedJson, requirePrincipal } from '../../core/operation';
import { planBoardLayouts, planBoardSave } from '../document/plan';
import { diffRevisions, listHistory, readRevisionJson } from './history';
import type { BoardDocumentCache } from '../document/cache';
import type { BoardDocument } from '../document/types';
import type { BoardStateCache } from '../document/stateCache';
import { historyContext } from './record';
import { restoreRevision, type RestoreResult } from './restore';

/**
 * Plan (dry run), history, diff and restore routes of a board (PLAN-*, HIST-*). `boardDocuments` is the instance's
 * cache of serialized documents, which also holds revision documents.
 */
export const boardHistoryHandlers = ({ boardDocuments, boardStates }: { boardDocuments: BoardDocumentCache; boardStates: BoardStateCache }) => ({
  async planBoardSave({ params, body }, ctx) {
    const plan = await planBoardSave(ctx.db, {
      boardId: params.id,
      principal: requirePrincipal(ctx),
      content: { sections: body.sections, items: body.items },
      expectedVersion: body.expectedVersion,
      ifMatch: headerList(ctx, 'if-match'),
      states: boardStates,
    });
    return { status: 200, body: plan };
  },

  async planBoardLayouts({ params, body }, ctx) {
    const plan = await planBoardLayouts(ctx.db, { boardId: params.id, principal: requirePrincipal(ctx), layouts: body.layouts, ifMatch: headerList(ctx, 'if-match'), states: boardStates });
    return { status: 200, body: plan };
  },

  async getBoardHistory({ params, query }, ctx) {
    return { status: 200, body: await listHistory(ctx.db, ctx.principal, params.id, { limit: query.limit ?? 50, cursor: query.cursor }) };
  },

  async getBoardRevision({ params }, ctx) {
    const entry = await readRevisionJson(ctx.db, boardDocuments, ctx.principal, params.id, params.revision);
    return { status: 200, body: new PreSerializedJson(entry.parts, boardDocuments.formsOf(entry)), headers: { ETag: entry.etag } };
  },

  async getBoardDiff({ params, query }, ctx) {
    return { status: 200, body: await diffRevisions(ctx.db, ctx.principal, params.id, query.from, query.to) };
  },

  async restoreBoard({ params, body }, ctx) {
    const result = await audited<RestoreResult>(ctx, (done) => (done.changed ? { action: 'board.restore', targetType: 'board', targetId: params.id, details: { revision: body.revision } } : null), (trx) =>
      restoreRevision(trx, {
      boardId: params.id,
      principal: requirePrincipal(ctx),
      history: historyContext(ctx, 'restoreBoard'),
      ifMatch: headerList(ctx, 'if-match'),
      revision: body.revision,
      expectedVersion: body.expectedVersion,
      caches: { states: boardStates, documents: boardDocuments },
      }),
    );
    return { status: 200, body: new PreSerializedJson<BoardDocument>(result.serialized.parts, boardDocuments.formsOf(result.serialized)), headers: { ETag: result.etag, 'Tessera-Restore-Dropped': JSON.stringify(result.dropped) } };
  },
}) satisfies Partial<HandlerMap>;
