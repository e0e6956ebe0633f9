/** The HTML the page routes send (PAGE-*): a shell the page's script fills in, and the board list. No I/O. */

/** PAGE-5: the page loads nothing from elsewhere, runs no inline script and applies no inline style sheet. */
export const pageSecurityHeaders = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c]);

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/assets/board.css">
</head>
<body>
${body}
</body>
</html>
`;
}

/** PAGE-1: the board page; its script reads the board through the API with the caller's session. */
export function boardPage(name: string): string {
  return page(name, `<div id="app" data-board-name="${escapeHtml(name)}"><p>Loading ${escapeHtml(name)}…</p></div>\n<script src="/assets/board.js"></script>`);
}

/** PAGE-6: the boards the caller can read, when it has no home board to go to. */
export function boardListPage(boards: { name: string; isPublic: boolean }[], signedIn: boolean): string {
  const items = boards.map((board) => `<li><a href="/boards/${encodeURIComponent(board.name)}">${escapeHtml(board.name)}</a>${board.isPublic ? ' (public)' : ''}</li>`);
  const empty = signedIn ? '<p>No boards yet.</p>' : '<p>No public boards. Private boards show after signing in on a board page.</p>';
  return page('Boards', `<div id="app"><h1>Boards</h1>${items.length ? `<ul class="boards">${items.join('')}</ul>` : empty}</div>`);
}
