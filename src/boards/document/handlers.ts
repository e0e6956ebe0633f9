import { PreSerializedJson } from '../../http/operation';
import type { HandlerMap, RequestContext } from '../../http/operation';
import { requirePrincipal } from '../../http/operation';
import { addBoardItem, deleteBoardItem, updateBoardItem } from './items';
import { saveBoardLayouts } from './layouts';
import { readBoardDocumentJson } from './read';
import { DocumentResult, saveBoardContent } from './save';
import { addBoardSection, deleteBoardSection, updateBoardSection } from './sections';

function ifMatchOf(ctx: RequestContext): string | undefined {
  const value = ctx.headers['if-match'];
  return Array.isArray(value) ? value.join(', ') : value;
}

function documentReply<S extends 200 | 201>(status: S, result: DocumentResult) {
  return { status, body: result.document, headers: { ETag: result.etag } };
}

/** Board document routes (GET/PUT board, items, sections, layouts). */
export const boardDocumentHandlers = {
  async getBoard({ params }, ctx) {
    const { json, etag } = await readBoardDocumentJson(ctx.db, ctx.boardDocuments, params.id, ctx.principal);
    return { status: 200, body: new PreSerializedJson(json), headers: { ETag: etag } };
  },

  async saveBoard({ params, body }, ctx) {
    const result = await saveBoardContent(ctx.db, {
      boardId: params.id,
      principal: requirePrincipal(ctx),
      content: { sections: body.sections, items: body.items },
      expectedVersion: body.expectedVersion,
      ifMatch: ifMatchOf(ctx),
    });
    return documentReply(200, result);
  },

  async saveBoardLayouts({ params, body }, ctx) {
    const result = await saveBoardLayouts(ctx.db, {
      boardId: params.id,
      principal: requirePrincipal(ctx),
      layouts: body.layouts,
      ifMatch: ifMatchOf(ctx),
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
      ifMatch: ifMatchOf(ctx),
    });
    return documentReply(200, result);
  },

  async deleteBoardItem({ params }, ctx) {
    const result = await deleteBoardItem(ctx.db, {
      boardId: params.id,
      itemId: params.itemId,
      principal: requirePrincipal(ctx),
      ifMatch: ifMatchOf(ctx),
    });
    return documentReply(200, result);
  },

  async addBoardSection({ params, body }, ctx) {
    const result = await addBoardSection(ctx.db, { boardId: params.id, principal: requirePrincipal(ctx), section: body, ifMatch: ifMatchOf(ctx) });
    return documentReply(201, result);
  },

  async updateBoardSection({ params, body }, ctx) {
    const result = await updateBoardSection(ctx.db, {
      boardId: params.id,
      sectionId: params.sectionId,
      principal: requirePrincipal(ctx),
      section: body,
      ifMatch: ifMatchOf(ctx),
    });
    return documentReply(200, result);
  },

  async deleteBoardSection({ params }, ctx) {
    const result = await deleteBoardSection(ctx.db, {
      boardId: params.id,
      sectionId: params.sectionId,
      principal: requirePrincipal(ctx),
      ifMatch: ifMatchOf(ctx),
    });
    return documentReply(200, result);
  },
} satisfies Partial<HandlerMap>;
