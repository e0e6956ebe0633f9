import { notFound } from '../core/errors';
import { headerList, type HandlerMap, type RequestContext } from '../core/operation';
import { ResponseTakeover, TextBody } from '../core/operation';
import { ifNoneMatchMatches } from '../boards/document/model';
import { assetCacheControl, assetUrl, pageAsset } from './assets';
import { boardManifest } from './manifest';
import { allows, loadBoardAccess } from '../boards/access';
import { findBoardIdByName } from '../boards/files/exportBoard';
import { isPhoneRequest, resolveHomeBoard } from '../boards/home/resolve';
import { loadHomeCandidates } from '../boards/home/store';
import { listBoards } from '../boards/management/boards';
import { boardListPage, boardPage, pageSecurityHeaders, proposalPage } from './html';
import { proposalView, reviewableProposal } from '../mcp/agent';
import { loadPageSources, widenPolicy } from './csp';
import { Board } from '../db/models';
import type { BoardCaches } from '../boards/document/save';
import { readBoardDocumentJson } from '../boards/document/read';
import { boardIntegrationNames } from '../integrations/integrations';

const html = (text: string) => new TextBody<string>(text, 'text/html; charset=utf-8');

/** The name and colour scheme of a board the caller may view, else null (a board it may not see is as good as none). */
async function viewableBoard(ctx: RequestContext, boardId: string | null): Promise<{ name: string; colorScheme: string } | null> {
  if (boardId === null) return null;
  const access = await loadBoardAccess(ctx.db, boardId, ctx.principal).catch(() => null);
  if (!access || !allows(access, 'view')) return null;
  return (await Board.query(ctx.db).findById(boardId).select('name', 'colorScheme')) ?? null;
}

/** The name of a board the caller may view, else null. */
const viewableName = async (ctx: RequestContext, boardId: string | null) => (await viewableBoard(ctx, boardId))?.name ?? null;

/**
 * VIEW-7: a board the caller may view as the page is served with it: its document and its apps as GET
 * /api/boards/{id} and GET /api/boards/{id}/apps answer them to the caller, and the names of its integrations the
 * caller may list (`data`, a JSON object text); VIEW-5: the page's policy, images and frames allowed only as far as
 * its widgets need them.
 */
async function servedBoard(ctx: RequestContext, boardId: string, caches: BoardCaches): Promise<{ policy: string; data: string }> {
  const [sources, document, integrations] = await Promise.all([
    loadPageSources(ctx.db, ctx.principal, boardId),
    readBoardDocumentJson(ctx.db, caches.documents, boardId, ctx.principal, caches.states),
    boardIntegrationNames(ctx.db, ctx.principal, boardId),
  ]);
  const policy = widenPolicy(pageSecurityHeaders['Content-Security-Policy'], sources);
  const data = `{"board":${Buffer.concat(document.parts).toString('utf8')},"apps":${JSON.stringify(sources.apps)},"integrations":${JSON.stringify(integrations)}}`;
  return { policy, data };
}

const boardPath = (name: string) => `/boards/${encodeURIComponent(name)}`;

/** The board preview page (PAGE-1..6, NAV-*): `/` goes to the caller's home board, `/boards/{name}` draws a board. */
export const pageHandlers = ({ caches }: { caches: BoardCaches }) =>
  ({
  async getIndexPage(_input, ctx) {
    // NAV-1, NAV-2: the home board for a desktop and for a phone; a phone gets its own at once; another browser gets
    // the one board when both are the same, else the board list naming both, whose script picks by the window's width.
    const candidates = await loadHomeCandidates(ctx.db, ctx.principal);
    const [desktop, mobile] = await Promise.all([
      viewableName(ctx, resolveHomeBoard(candidates, 'desktop')),
      viewableName(ctx, resolveHomeBoard(candidates, 'mobile')),
    ]);
    const target = isPhoneRequest(ctx.headers) ? mobile : desktop === mobile ? desktop : undefined;
    const headers = { ...pageSecurityHeaders, Vary: 'User-Agent, Sec-CH-UA-Mobile' };
    if (target) return { status: 302, body: undefined, headers: { ...headers, Location: boardPath(target) } };
    const boards = await listBoards(ctx.db, ctx.principal);
    const home = target === undefined ? { desktop, mobile } : null;
    return { status: 200, body: html(boardListPage(boards, ctx.principal !== null, home)), headers };
  },

  async getBoardPage({ params }, ctx) {
    // PAGE-3: a board the caller may not view answers as a missing one, with the same page (which offers to sign in).
    const boardId = await findBoardIdByName(ctx.db, params.name).catch(() => null);
    const viewable = await viewableBoard(ctx, boardId);
    if (viewable === null) return { status: 404, body: html(boardPage(params.name)), headers: pageSecurityHeaders };
    const { policy, data } = await servedBoard(ctx, boardId!, caches);
    // THEMEVIEW-4: the board's colour scheme in the HTML, for a first paint in the board's colours.
    const scheme = viewable.colorScheme === 'light' || viewable.colorScheme === 'dark' ? viewable.colorScheme : 'auto';
    return { status: 200, body: html(boardPage(params.name, data, scheme)), headers: { ...pageSecurityHeaders, 'Content-Security-Policy': policy } };
  },

  /**
   * AGENT-12: a proposal's preview page: for a caller who may review it, the proposal, its arguments and the first
   * board it touches as the caller may view it now (the page draws the proposed board from them); anyone else the
   * same page answered 404, which offers to sign in.
   */
  async getProposalPage({ params }, ctx) {
    const proposal = ctx.principal ? await reviewableProposal(ctx, params.proposalId).catch(() => null) : null;
    if (proposal === null) return { status: 404, body: html(proposalPage(null)), headers: pageSecurityHeaders };
    const boardId = proposal.boards[0]?.boardId ?? null;
    const served = (await viewableBoard(ctx, boardId)) ? await servedBoard(ctx, boardId!, caches) : null;
    const data = `{"proposal":${JSON.stringify(proposalView(proposal))},"arguments":${JSON.stringify(proposal.input)},"served":${served?.data ?? 'null'}}`;
    const policy = served?.policy ?? pageSecurityHeaders['Content-Security-Policy'];
    return { status: 200, body: html(proposalPage(data)), headers: { ...pageSecurityHeaders, 'Content-Security-Policy': policy } };
  },

  /** NAV-6: the board's custom CSS as a style sheet of this instance, so the page's CSP (style-src 'self') governs it. */
  async getBoardStyle({ params }, ctx) {
    const boardId = await findBoardIdByName(ctx.db, params.name).catch(() => null);
    if ((await viewableName(ctx, boardId)) === null) throw notFound('Board not found');
    const row = (await Board.query(ctx.db).findById(boardId!).select('customCss'))!;
    return {
      status: 200,
      body: new TextBody<string>(row.customCss ?? '', 'text/css; charset=utf-8'),
      headers: { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
    };
  },

  /** PAGE-7: immutable under its content hash; otherwise revalidated by the ETag (304 without the file). */
  async getPageAsset({ params, query }, ctx) {
    const asset = pageAsset(params.file);
    if (!asset) throw notFound('Not found');
    const headers = { ETag: asset.etag, 'Cache-Control': assetCacheControl(asset, query?.v), 'X-Content-Type-Options': 'nosniff' };
    const ifNoneMatch = headerList(ctx, 'if-none-match');
    if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, asset.etag)) return { status: 304 as const, body: undefined, headers };
    // PWA-1: an image (Tessera's icon) is sent as its bytes, as read.
    if (asset.bytes) {
      const bytes = asset.bytes;
      return {
        status: 200,
        body: new ResponseTakeover(async (_req, res) => {
          res.writeHead(200, { ...headers, 'Content-Type': asset.type, 'Content-Length': String(bytes.length) });
          res.end(bytes);
        }),
        headers,
      };
    }
    return { status: 200, body: new TextBody<string>(asset.text, asset.type, asset.forms ?? undefined), headers };
  },

  /** PWA-1: the board's web app manifest (view access, else 404 as for a missing board); linked by the board page. */
  async getBoardManifest({ params }, ctx) {
    const boardId = await findBoardIdByName(ctx.db, params.name).catch(() => null);
    if ((await viewableName(ctx, boardId)) === null) throw notFound('Board not found');
    const row = (await Board.query(ctx.db).findById(boardId!).select('name', 'pageTitle', 'logoImageUrl', 'primaryColor'))!;
    const manifest = boardManifest(row, { src192: assetUrl('tessera-192.png'), src512: assetUrl('tessera-512.png') });
    return {
      status: 200,
      body: new TextBody(JSON.stringify(manifest), 'application/manifest+json; charset=utf-8') as never,
      headers: { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' },
    };
  },
}) satisfies Partial<HandlerMap>;
