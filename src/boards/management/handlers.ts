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
import { audited } from '../../observability/audit';

/** Board management routes (list, create, duplicate, rename, visibility, settings, home, delete, grants). */
export const boardManagementHandlers = {
  async listBoards({ query }, ctx) {
    const page = await listBoardsPage(ctx.db, ctx.principal, query);
    return { status: 200, body: page.items, headers: nextPageHeaders('/api/boards', query, page.nextCursor) };
  },

  async createBoard({ body }, ctx) {
    const boardId = await audited<string>(
      ctx,
      (id) => ({ action: 'board.create', targetType: 'board', targetId: id, details: { name: body.name, isPublic: body.isPublic } }),
      (trx) => createBoard(trx, requirePrincipal(ctx), body, historyContext(ctx, 'createBoard')),
    );
    return { status: 201, body: { boardId }, headers: { Location: `/api/boards/${boardId}` } };
  },

  async duplicateBoard({ params, body }, ctx) {
    const boardId = await audited<string>(
      ctx,
      (id) => ({ action: 'board.duplicate', targetType: 'board', targetId: id, details: { sourceBoardId: params.id, name: body.name } }),
      (trx) => duplicateBoard(trx, requirePrincipal(ctx), params.id, body.name, historyContext(ctx, 'duplicateBoard')),
    );
    return { status: 201, body: { boardId }, headers: { Location: `/api/boards/${boardId}` } };
  },

  async renameBoard({ params, body }, ctx) {
    await audited(ctx, { action: 'board.rename', targetType: 'board', targetId: params.id, details: { name: body.name } }, (trx) =>
      renameBoard(trx, requirePrincipal(ctx), params.id, body.name, historyContext(ctx, 'renameBoard')),
    );
    return { status: 204, body: undefined };
  },

  async changeBoardVisibility({ params, body }, ctx) {
    await audited(ctx, { action: 'board.visibility', targetType: 'board', targetId: params.id, details: { visibility: body.visibility } }, (trx) =>
      changeBoardVisibility(trx, requirePrincipal(ctx), params.id, body.visibility, historyContext(ctx, 'changeBoardVisibility')),
    );
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
    await audited(ctx, { action: 'board.delete', targetType: 'board', targetId: params.id }, (trx) =>
      deleteBoard(trx, requirePrincipal(ctx), params.id, { ifMatch: headerList(ctx, 'if-match') }),
    );
    return { status: 204, body: undefined };
  },

  async getBoardPermissions({ params }, ctx) {
    return { status: 200, body: await getBoardGrants(ctx.db, requirePrincipal(ctx), params.id) };
  },

  async setBoardPermissions({ params, body }, ctx) {
    const grants = await audited(
      ctx,
      {
        action: 'board.permissions',
        targetType: 'board',
        targetId: params.id,
        details: { users: body.users, groups: body.groups },
      },
      (trx) => setBoardGrants(trx, requirePrincipal(ctx), params.id, body),
    );
    return { status: 200, body: grants };
  },
} satisfies Partial<HandlerMap>;
