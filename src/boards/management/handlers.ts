import type { HandlerMap } from '../../core/operation';
import { headerList, requirePrincipal } from '../../core/operation';
import { nextPageHeaders } from '../../core/pages';
import {
  changeBoardVisibility,
  createBoard,
  deleteBoard,
  duplicateBoard,
  listBoardsPage,
  renameBoard,
  setHomeBoard,
  updateBoardSettings,
} from './boards';
import { getBoardGrants, setBoardGrants } from './grants';
import { historyContext } from '../history/record';

/** Board management routes (list, create, duplicate, rename, visibility, settings, home, delete, grants). */
export const boardManagementHandlers = {
  async listBoards({ query }, ctx) {
    const page = await listBoardsPage(ctx.db, ctx.principal, query);
    return { status: 200, body: page.items, headers: nextPageHeaders('/api/boards', query, page.nextCursor) };
  },

  async createBoard({ body }, ctx) {
    const boardId = await createBoard(ctx.db, requirePrincipal(ctx), body, historyContext(ctx, 'createBoard'));
    return { status: 201, body: { boardId }, headers: { Location: `/api/boards/${boardId}` } };
  },

  async duplicateBoard({ params, body }, ctx) {
    const boardId = await duplicateBoard(ctx.db, requirePrincipal(ctx), params.id, body.name, historyContext(ctx, 'duplicateBoard'));
    return { status: 201, body: { boardId }, headers: { Location: `/api/boards/${boardId}` } };
  },

  async renameBoard({ params, body }, ctx) {
    await renameBoard(ctx.db, requirePrincipal(ctx), params.id, body.name, historyContext(ctx, 'renameBoard'));
    return { status: 204, body: undefined };
  },

  async changeBoardVisibility({ params, body }, ctx) {
    await changeBoardVisibility(ctx.db, requirePrincipal(ctx), params.id, body.visibility, historyContext(ctx, 'changeBoardVisibility'));
    return { status: 204, body: undefined };
  },

  async updateBoardSettings({ params, body }, ctx) {
    await updateBoardSettings(ctx.db, requirePrincipal(ctx), params.id, body, historyContext(ctx, 'updateBoardSettings'));
    return { status: 204, body: undefined };
  },

  async setHomeBoard({ params }, ctx) {
    await setHomeBoard(ctx.db, requirePrincipal(ctx), params.id, 'desktop');
    return { status: 204, body: undefined };
  },

  async setMobileHomeBoard({ params }, ctx) {
    await setHomeBoard(ctx.db, requirePrincipal(ctx), params.id, 'mobile');
    return { status: 204, body: undefined };
  },

  async deleteBoard({ params }, ctx) {
    await deleteBoard(ctx.db, requirePrincipal(ctx), params.id, { ifMatch: headerList(ctx, 'if-match') });
    return { status: 204, body: undefined };
  },

  async getBoardPermissions({ params }, ctx) {
    return { status: 200, body: await getBoardGrants(ctx.db, requirePrincipal(ctx), params.id) };
  },

  async setBoardPermissions({ params, body }, ctx) {
    return { status: 200, body: await setBoardGrants(ctx.db, requirePrincipal(ctx), params.id, body) };
  },
} satisfies Partial<HandlerMap>;
