/** The HTML the page routes send (PAGE-*): a shell the page's script fills in, and the board list. No I/O but the assets' hashes, read once. */
import { assetUrl } from './assets';

/**
 * PAGE-5: the page loads nothing from elsewhere, runs no inline script and applies no inline style sheet; the board's
 * custom CSS comes as a style sheet of the instance (NAV-6), so this policy governs it too.
 */
export const pageSecurityHeaders = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c]);

/** A board's colour scheme setting (THEME-1). */
export type BoardScheme = 'light' | 'dark' | 'auto';

/**
 * THEMEVIEW-4: the colour scheme the HTML itself carries, so that the first paint, before any script, has the
 * board's colours: a light or dark board's `<html data-scheme>` (the style sheet keys its colours on it), and the
 * matching `<meta name="color-scheme">` (the browser's own canvas and controls before the style sheet applies); an
 * `auto` board, or a page of no board, no attribute (the style sheet's `prefers-color-scheme` query decides) and
 * `light dark`. The viewer's remembered choice (THEMEVIEW-2) replaces the attribute when the page's script runs.
 */
export function schemeMarkup(scheme: BoardScheme | null): { attribute: string; meta: string } {
  const fixed = scheme === 'light' || scheme === 'dark' ? scheme : null;
  return { attribute: fixed ? ` data-scheme="${fixed}"` : '', meta: `<meta name="color-scheme" content="${fixed ?? 'light dark'}">` };
}

function page(title: string, body: string, head = '', scheme: BoardScheme | null = null): string {
  const { attribute, meta } = schemeMarkup(scheme);
  return `<!DOCTYPE html>
<html lang="en"${attribute}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${meta}
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assetUrl('board.css')}">${head}
</head>
<body>
<header id="topbar" class="topbar"></header>
${body}
</body>
</html>
`;
}

/**
 * JSON as the text of a `<script type="application/json">` data block: every `<` escaped (it can only be inside a
 * string), so no `</script>` or `<!--` in the data ends the block. A data block is never run, so PAGE-5's
 * policy (no inline script) holds.
 */
export const jsonDataBlock = (id: string, json: string) => `<script type="application/json" id="${escapeHtml(id)}">${json.replace(/</g, '\\u003c')}</script>`;

/**
 * PAGE-1: the board page; its script reads the board through the API with the caller's session. VIEW-7: a board the
 * caller may view comes with its document and its readable apps as the API answers them to the caller (`data`, JSON
 * `{board, apps, integrations}`, the last the names of its integrations the caller may list), so the first drawing
 * waits for no request. THEMEVIEW-4: `scheme`, the board's colour scheme, is in the HTML (schemeMarkup).
 */
export function boardPage(name: string, data: string | null = null, scheme: BoardScheme | null = null): string {
  const block = data === null ? '' : `\n${jsonDataBlock('board-data', data)}`;
  // PWA-2: a board the caller may view links its manifest (with the caller's cookie: a private board's needs it).
  // THEMEVIEW-5: the viewer's remembered scheme applied before the first paint, by a script of the instance (PAGE-5).
  const head =
    `\n<script src="${assetUrl('scheme.js')}"></script>` +
    (data === null
      ? ''
      : `\n<link rel="manifest" href="/boards/${encodeURIComponent(name)}/manifest.webmanifest" crossorigin="use-credentials">\n<link rel="apple-touch-icon" href="${assetUrl('tessera-192.png')}">`);
  return page(name, `<div id="app" data-board-name="${escapeHtml(name)}"><p>Loading ${escapeHtml(name)}…</p></div>${block}\n<script src="${assetUrl('board.js')}"></script>`, head, scheme);
}

/**
 * PAGE-6: the boards the caller can read, when it has no home board to go to. NAV-2: `home` names the desktop and the
 * mobile home boards when the server could not tell which one the device wants; the list's script picks one.
 */
export function boardListPage(
  boards: { name: string; isPublic: boolean }[],
  signedIn: boolean,
  home: { desktop: string | null; mobile: string | null } | null = null,
): string {
  const items = boards.map((board) => `<li><a href="/boards/${encodeURIComponent(board.name)}">${escapeHtml(board.name)}</a>${board.isPublic ? ' (public)' : ''}</li>`);
  const empty = signedIn ? '<p>No boards yet.</p>' : '<p>No public boards. Private boards show after signing in.</p>';
  const choice = home ? ` data-home-desktop="${escapeHtml(home.desktop ?? '')}" data-home-mobile="${escapeHtml(home.mobile ?? '')}"` : '';
  return page(
    'Boards',
    `<div id="app" class="list"${choice}><h1>Boards</h1>${items.length ? `<ul class="boards">${items.join('')}</ul>` : empty}</div>\n<script src="${assetUrl('list.js')}"></script>`,
  );
}

/**
 * AGENT-12: the preview page of an MCP proposal; `data` (JSON `{proposal, arguments, served}`, `served` the board
 * page's data of the first board it touches, or null) for a caller who may review it, null for anyone else (the
 * page then offers to sign in).
 */
export function proposalPage(data: string | null): string {
  const block = data === null ? '' : `\n${jsonDataBlock('proposal-data', data)}`;
  return page(
    'Proposal',
    `<div id="app" class="proposal-page"><p>Loading the proposal…</p></div>${block}\n<script src="${assetUrl('proposal.js')}"></script>`,
    `\n<script src="${assetUrl('scheme.js')}"></script>`,
  );
}
