import { PreSerializedJson } from '../../core/operation';
import type { HandlerMap } from '../../core/operation';
import { headerList, requirePrincipal } from '../../core/operation';
import type { BoardDocumentCache } from './cache';
import { addBoardItem, deleteBoardItem, updateBoardItem } from './items';
import { saveBoardLayouts } from './layouts';
import { ifNoneMatchMatches, readBoardDocumentJson } from './read';
import { DocumentResult, saveBoardContent } from './save';
import { addBoardSection, deleteBoardSection, updateBoardSection } from './sections';

function documentReply<S extends 200 | 201>(status: S, result: DocumentResult) {
  return { status, body: result.document, headers: { ETag: result.etag } };
}

/**
 * Board document routes (GET/PUT board, items, sections, layouts). `boardDocuments` is the instance's cache of
 * serialized documents, always validated against the board's revision in the database.
 */
export const boardDocumentHandlers = ({ boardDocuments }: { boardDocuments: BoardDocumentCache }) => ({
  async getBoard({ params }, ctx) {
    const { json, etag } = await readBoardDocumentJson(ctx.db, boardDocuments, params.id, ctx.principal);
    const ifNoneMatch = headerList(ctx, 'if-none-match');
    if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, etag)) return { status: 304, body: undefined, headers: { ETag: etag } };
    return { status: 200, body: new PreSerializedJson(json), headers: { ETag: etag } };
  },

  async saveBoard({ params, body }, ctx) {
    const result = await saveBoardContent(ctx.db, {
      boardId: params.id,
      principal: requirePrincipal(ctx),
      content: { sections: body.sections, items: body.items },
      expectedVersion: body.expectedVersion,
      ifMatch: headerList(ctx, 'if-match'),
    });
    return documentReply(200, result);
  },

  async saveBoardLayouts({ params, body }, ctx) {
    const result = await saveBoardLayouts(ctx.db, {
      boardId: params.id,
      principal: requirePrincipal(ctx),
      layouts: body.layouts,
      ifMatch: headerList(ctx, 'if-match'),
    });
    return documentReply(200, result);
  },

  async addBoardItem({ body }, ctx) {
    const itemId = await addBoardItem(ctx.db, requirePrincipal(ctx), body);
    return { status: 201, body: { itemId } };
  },

  async updateBoardItem({ params, body }, ctx) {
    const result = await updateBoardItem(ctx.db, {
      boardId: params.id,
      itemId: params.itemId,
      principal: requirePrincipal(ctx),
      changes: body,
      ifMatch: headerList(ctx, 'if-match'),
    });
    return documentReply(200, result);
  },

  async deleteBoardItem({ params }, ctx) {
    const result = await deleteBoardItem(ctx.db, {
      boardId: params.id,
      itemId: params.itemId,
      principal: requirePrincipal(ctx),
      ifMatch: headerList(ctx, 'if-match'),
    });
    return documentReply(200, result);
  },

  async addBoardSection({ params, body }, ctx) {
    const result = await addBoardSection(ctx.db, { boardId: params.id, principal: requirePrincipal(ctx), section: body, ifMatch: headerList(ctx, 'if-match') });
    return documentReply(201, result);
  },

  async updateBoardSection({ params, body }, ctx) {
    const result = await updateBoardSection(ctx.db, {
      boardId: params.id,
      sectionId: params.sectionId,
      principal: requirePrincipal(ctx),
      section: body,
      ifMatch: headerList(ctx, 'if-match'),
    });
    return documentReply(200, result);
  },

  async deleteBoardSection({ params }, ctx) {
    const result = await deleteBoardSection(ctx.db, {
      boardId: params.id,
      sectionId: params.sectionId,
      principal: requirePrincipal(ctx),
      ifMatch: headerList(ctx, 'if-match'),
    });
    return documentReply(200, result);
  },
}) satisfies Partial<HandlerMap>;
