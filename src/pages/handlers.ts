import { readFileSync } from 'node:fs';
import path from 'node:path';
import { notFound } from '../core/errors';
import type { HandlerMap } from '../core/operation';
import { TextBody } from '../core/operation';
import { allows, loadBoardAccess } from '../boards/access';
import { findBoardIdByName } from '../boards/files/exportBoard';
import { homeBoardId, listBoards } from '../boards/management/boards';
import { boardListPage, boardPage, pageSecurityHeaders } from './html';
import { Board } from '../db/models';

/** The page's script (built by `npm run generate`) and style sheet, read once. */
const assets: Record<string, { file: string; type: string; text?: string }> = {
  'board.js': { file: path.join(__dirname, '../../generated/pages/board.js'), type: 'text/javascript; charset=utf-8' },
  'board.css': { file: path.join(__dirname, 'client/board.css'), type: 'text/css; charset=utf-8' },
};

const html = (text: string) => new TextBody<string>(text, 'text/html; charset=utf-8');

/** The board preview page (PAGE-1..6): `/` goes to the caller's home board, `/boards/{name}` draws a board. */
export const pageHandlers = {
  async getIndexPage(_input, ctx) {
    const home = await homeBoardId(ctx.db, ctx.principal).catch(() => null);
    const access = home === null ? null : await loadBoardAccess(ctx.db, home, ctx.principal);
    if (home !== null && access && allows(access, 'view')) {
      const { name } = (await Board.query(ctx.db).findById(home).select('name'))!;
      return { status: 302, body: undefined, headers: { Location: `/boards/${encodeURIComponent(name)}`, 'Cache-Control': 'no-store' } };
    }
    const boards = await listBoards(ctx.db, ctx.principal);
    return { status: 200, body: html(boardListPage(boards, ctx.principal !== null)), headers: pageSecurityHeaders };
  },

  async getBoardPage({ params }, ctx) {
    // PAGE-3: a board the caller may not view answers as a missing one, with the same page (which offers to sign in).
    const boardId = await findBoardIdByName(ctx.db, params.name).catch(() => null);
    const access = boardId === null ? null : await loadBoardAccess(ctx.db, boardId, ctx.principal);
    const status = access && allows(access, 'view') ? 200 : 404;
    return { status, body: html(boardPage(params.name)), headers: pageSecurityHeaders };
  },

  async getPageAsset({ params }) {
    const asset = assets[params.file];
    if (!asset) throw notFound('Not found');
    asset.text ??= readFileSync(asset.file, 'utf8');
    return { status: 200, body: new TextBody<string>(asset.text, asset.type), headers: { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' } };
  },
} satisfies Partial<HandlerMap>;
