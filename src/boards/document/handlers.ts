import { PreSerializedJson } from '../../core/operation';
import type { HandlerMap, OperationId, RequestContext } from '../../core/operation';
import { historyContext } from '../history/record';
import { headerList, requirePrincipal } from '../../core/operation';
import type { BoardDocumentCache } from './cache';
import type { BoardStateCache } from './stateCache';
import { addBoardItem, deleteBoardItem, updateBoardItem } from './items';
import { saveBoardLayouts } from './layouts';
import { ifNoneMatchMatches } from './model';
import { readBoardDocumentJson } from './read';
import { BoardCaches, BoardWrite, DocumentResult, saveBoardContent } from './save';
import type { BoardDocument } from './types';
import { addBoardSection, deleteBoardSection, updateBoardSection } from './sections';

/** A written board's document as the answer, with the compressed forms the document cache keeps for it (HTTP-7). */
function documentReply<S extends 200 | 201>(caches: BoardCaches, status: S, result: DocumentResult) {
  return { status, body: new PreSerializedJson<BoardDocument>(result.serialized.parts, caches.documents.formsOf(result.serialized)), headers: { ETag: result.etag } };
}

/** GET of a board document (DOC-1, DOC-5), by id or by name: 304 when If-None-Match names its ETag (HTTP-3). */
export async function boardDocumentRead(ctx: RequestContext, caches: BoardCaches, boardId: string) {
  const entry = await readBoardDocumentJson(ctx.db, caches.documents, boardId, ctx.principal, caches.states);
  const ifNoneMatch = headerList(ctx, 'if-none-match');
  if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, entry.etag)) return { status: 304 as const, body: undefined, headers: { ETag: entry.etag } };
  return { status: 200 as const, body: new PreSerializedJson<BoardDocument>(entry.parts, caches.documents.formsOf(entry)), headers: { ETag: entry.etag } };
}

/** What every board document write takes from the request: the board, the caller, the operation and If-Match. */
function boardWriteOf(caches: BoardCaches) {
  return (ctx: RequestContext, boardId: string, operation: OperationId): BoardWrite => ({
    boardId,
    principal: requirePrincipal(ctx),
    history: historyContext(ctx, operation),
    ifMatch: headerList(ctx, 'if-match'),
    caches,
  });
}

/**
 * Board document routes (GET/PUT board, items, sections, layouts). `boardDocuments` is the instance's cache of
 * serialized documents, always validated against the board's revision in the database.
 */
export const boardDocumentHandlers = ({ boardDocuments, boardStates }: { boardDocuments: BoardDocumentCache; boardStates: BoardStateCache }) => {
  const caches = { states: boardStates, documents: boardDocuments };
  const boardWrite = boardWriteOf(caches);
  return {
    async getBoard({ params }, ctx) {
      return boardDocumentRead(ctx, caches, params.id);
    },

    async saveBoard({ params, body }, ctx) {
      const content = { sections: body.sections, items: body.items };
      return documentReply(caches, 200, await saveBoardContent(ctx.db, { ...boardWrite(ctx, params.id, 'saveBoard'), content, expectedVersion: body.expectedVersion }));
    },

    async saveBoardLayouts({ params, body }, ctx) {
      return documentReply(caches, 200, await saveBoardLayouts(ctx.db, { ...boardWrite(ctx, params.id, 'saveBoardLayouts'), layouts: body.layouts }));
    },

    async addBoardItem({ body }, ctx) {
      const itemId = await addBoardItem(ctx.db, requirePrincipal(ctx), body, { history: historyContext(ctx, 'addBoardItem'), caches });
      // The item is read as part of its board (HTTP-6).
      return { status: 201, body: { itemId }, headers: { Location: `/api/boards/${body.boardId}` } };
    },

    async updateBoardItem({ params, body }, ctx) {
      return documentReply(caches, 200, await updateBoardItem(ctx.db, { ...boardWrite(ctx, params.id, 'updateBoardItem'), itemId: params.itemId, changes: body }));
    },

    async deleteBoardItem({ params }, ctx) {
      return documentReply(caches, 200, await deleteBoardItem(ctx.db, { ...boardWrite(ctx, params.id, 'deleteBoardItem'), itemId: params.itemId }));
    },

    async addBoardSection({ params, body }, ctx) {
      const reply = documentReply(caches, 201, await addBoardSection(ctx.db, { ...boardWrite(ctx, params.id, 'addBoardSection'), section: body }));
      return { ...reply, headers: { ...reply.headers, Location: `/api/boards/${params.id}` } };
    },

    async updateBoardSection({ params, body }, ctx) {
      return documentReply(caches, 200, await updateBoardSection(ctx.db, { ...boardWrite(ctx, params.id, 'updateBoardSection'), sectionId: params.sectionId, section: body }));
    },

    async deleteBoardSection({ params }, ctx) {
      return documentReply(caches, 200, await deleteBoardSection(ctx.db, { ...boardWrite(ctx, params.id, 'deleteBoardSection'), sectionId: params.sectionId }));
    },
  } satisfies Partial<HandlerMap>;
};
