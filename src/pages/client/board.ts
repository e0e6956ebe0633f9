/**
 * The board preview page (PAGE-1..5), in the browser: draws the board's grid for one breakpoint layout, follows the
 * change feed, shows history and a revision's difference from now. Every text from the board goes in as text
 * (textContent), never as HTML; nothing is loaded from outside the instance. Bundled by `npm run generate`
 * (esbuild) into generated/pages/board.js.
 */
import { el, shortTime, takeServedJson } from './dom';
import { drawGrid, patchBoard, type Board, type Marks } from './grid';
import { api } from './api';
import { boardFacts, detailsPanel, detailsToggle } from './details';
import { fitAppNames } from './fit';
import { layoutForWidth } from './layout';
import { applyLook, type Look } from './look';
import { applyScheme } from './theme';
import { drawTopbar } from './nav';
import { pageTools } from './pageTools';
import { autoSignIn, signInForm } from './signin';
import { firstPoll, nextPoll } from './statusSchedule';
import { preloadMarkdown, updatePingDots, type AppStatusView, type AppView } from './widgets';

interface HistoryEntry {
  revision: number;
  version: number;
  at: string;
  operation: string;
  actor: { name: string | null };
  summary: { items: Counts; sections: Counts; layouts: Counts; fields: string[] };
}
interface Counts {
  added: number;
  removed: number;
  updated: number;
}
interface Diff {
  changes: { items: { added: string[]; removed: string[]; updated: string[] } };
}

const root = document.getElementById('app')!;
const boardName = root.dataset.boardName!;

const state: {
  board: Board | null;
  layoutId: string | null;
  viewing: { revision: number; board: Board; diff: Diff } | null;
  apps: Map<string, AppView>;
  statuses: Map<string, AppStatusView>;
  integrations: Map<string, string>;
  history: HistoryEntry[];
  feed: EventSource | null;
  /** A layout chosen with the switcher stays chosen when the window is resized. */
  chosen: boolean;
} = { board: null, layoutId: null, viewing: null, apps: new Map(), statuses: new Map(), integrations: new Map(), history: [], feed: null, chosen: false };

/** The board and its readable apps as the page was served with them (VIEW-7), or null (a page without them). */
interface Served {
  board: Board;
  apps: AppView[];
  /** The names of the board's integrations the caller may list (VIEW-6). */
  integrations: { id: string; name: string }[];
}

/** VIEW-7: the board the page was served with, read once: later reads (a change, signing in) ask the API. */
function takeServed(): Served | null {
  return takeServedJson<Served>('board-data');
}

/** The names the board's widgets show: its apps and its integrations' names, asked for unless they came with the page. */
async function loadNames(board: Board, served: Served | null = null): Promise<void> {
  // VIEW-3: the markdown script loads while the rest of the board does.
  if (board.items.some((item) => item.kind === 'notebook')) preloadMarkdown().catch(() => undefined);
  // VIEW-2: the apps the board's widgets name, those the caller may read, in one request; the integrations' names
  // at the same time (VIEW-7: neither waits for the other).
  const loadApps = async () => {
    const { status, body } = await api<{ apps: AppView[] }>(`/api/boards/${encodeURIComponent(board.id)}/apps`);
    if (status === 200) state.apps = new Map(body.apps.map((app) => [app.id, app]));
  };
  const integrations = async () => {
    const { status, body } = await api<{ id: string; name: string }[]>('/api/integrations');
    if (status === 200) for (const integration of body) state.integrations.set(integration.id, integration.name);
  };
  if (served) {
    state.apps = new Map(served.apps.map((app) => [app.id, app]));
    for (const integration of served.integrations) state.integrations.set(integration.id, integration.name);
  }
  await Promise.all([
    !served && board.items.some((item) => item.kind === 'app' || item.kind === 'bookmarks') ? loadApps() : null,
    !served && board.items.some((item) => item.integrationIds.length > 0) && state.integrations.size === 0 ? integrations() : null,
  ]);
}

/**
 * The board and the names its widgets show (from the page when it came with them), then its history: VIEW-7, the
 * board is drawn without waiting for the history, whose panel is filled in when it arrives.
 */
async function loadBoard(served: Served | null = null): Promise<'ok' | 'missing'> {
  let board = served?.board;
  if (!board) {
    const { status, body } = await api<Board>(`/api/boards/by-name/${encodeURIComponent(boardName)}`);
    if (status !== 200) return 'missing';
    board = body;
  }
  void loadHistory(board.id);
  await loadNames(board, served);
  state.board = board;
  if (!state.layoutId || !board.layouts.some((layout) => layout.id === state.layoutId)) state.layoutId = layoutForWidth(board, window.innerWidth);
  return 'ok';
}

/** PAGE-4: the board's last revisions, put in the history panel when they arrive. */
async function loadHistory(boardId: string): Promise<void> {
  const { status, body } = await api<{ entries: HistoryEntry[] }>(`/api/boards/${encodeURIComponent(boardId)}/history?limit=50`);
  if (state.board && state.board.id !== boardId) return;
  state.history = status === 200 ? body.entries : [];
  root.querySelector('#board-details .history')?.replaceWith(historyPanel());
}

/** PAGE-4: the board as it was after `revision`, with what differs from now marked. */
async function showRevision(revision: number): Promise<void> {
  const id = encodeURIComponent(state.board!.id);
  const [past, diff] = await Promise.all([api<Board>(`/api/boards/${id}/history/${revision}`), api<Diff>(`/api/boards/${id}/diff?from=${revision}`)]);
  if (past.status !== 200 || diff.status !== 200) return;
  await loadNames(past.body);
  state.viewing = { revision, board: past.body, diff: diff.body };
  render();
}

async function restore(revision: number, message: HTMLElement): Promise<void> {
  const { status, body } = await api<{ message?: string }>(`/api/boards/${encodeURIComponent(state.board!.id)}/restore`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ revision, expectedVersion: state.board!.version }),
  });
  if (status === 200) {
    state.viewing = null;
    await refresh();
  } else {
    message.textContent = body?.message ?? `Restore failed (${status})`;
  }
}

function marksFor(viewing: NonNullable<typeof state.viewing>): Marks {
  const { added, removed, updated } = viewing.diff.changes.items;
  // Tiles of items added since the revision are drawn from the board as it is now, as ghosts.
  const ghosts = state.board!.items.filter((item) => added.includes(item.id));
  return { removed: new Set(removed), moved: new Set(updated), added: ghosts };
}

/** PAGE-9: the layouts, in the details panel; the window's width picks one (PAGE-2), a button previews another. */
function layoutSwitcher(board: Board): HTMLElement {
  const buttons = board.layouts.map((layout) =>
    el('button', {
      className: layout.id === state.layoutId ? 'layout current' : 'layout',
      text: `${layout.name} (${layout.columnCount} columns, from ${layout.breakpoint}px)`,
      dataset: { layoutId: layout.id },
      onclick: () => {
        state.layoutId = layout.id;
        state.chosen = true;
        render();
      },
    }),
  );
  const follow = el('button', {
    className: 'layout follow',
    text: 'Fit to the window',
    onclick: () => {
      state.chosen = false;
      state.layoutId = layoutForWidth(board, window.innerWidth);
      render();
    },
  });
  return el('nav', { className: 'layouts', ariaLabel: 'Breakpoint layouts' }, [el('h3', { text: 'Layouts' }), ...buttons, ...(state.chosen ? [follow] : [])]);
}

function historyPanel(): HTMLElement {
  const message = el('p', { className: 'message' });
  const entries = state.history.map((entry) => {
    const counts = (['items', 'sections', 'layouts'] as const)
      .map((part) => {
        const c = entry.summary[part];
        return c.added + c.removed + c.updated > 0 ? `${part} +${c.added} -${c.removed} ~${c.updated}` : '';
      })
      .filter(Boolean)
      .concat(entry.summary.fields.length ? [`fields: ${entry.summary.fields.join(', ')}`] : []);
    const current = state.viewing?.revision === entry.revision;
    return el('li', { className: current ? 'entry current' : 'entry', dataset: { revision: String(entry.revision) } }, [
      el('button', { className: 'show', text: `#${entry.revision} ${entry.operation}`, onclick: () => void showRevision(entry.revision) }),
      el('span', { className: 'who', text: `${entry.actor.name ?? 'system'}, ${shortTime(entry.at)}` }),
      el('span', { className: 'what', text: counts.join('; ') || 'no content change' }),
    ]);
  });
  const viewing = state.viewing;
  const header = viewing
    ? el('div', { className: 'viewing' }, [
        el('p', { text: `Showing revision ${viewing.revision}: removed since are struck out, changed since outlined, added since dashed.` }),
        el('button', { className: 'restore', text: `Restore revision ${viewing.revision}`, onclick: () => void restore(viewing.revision, message) }),
        el('button', { className: 'live', text: 'Back to now', onclick: () => ((state.viewing = null), render()) }),
      ])
    : el('p', { text: 'Choose a revision to see it and its difference from now.' });
  return el('section', { className: 'history' }, [el('h3', { text: 'History' }), header, message, el('ol', {}, entries)]);
}

function render(): void {
  const board = state.board!;
  const shown = state.viewing?.board ?? board;
  const layout = shown.layouts.find((l) => l.id === state.layoutId) ?? shown.layouts[0];
  applyLook(board as Board & Look); // NAV-6
  applyScheme(board); // THEMEVIEW-1
  // PAGE-9: the viewer sees the title and the board; the rest is behind "Board details".
  const header = el('header', {}, [el('h1', { text: board.pageTitle || board.name }), detailsToggle()]);
  const grid = drawGrid(shown, layout, { boardId: board.id, apps: state.apps, statuses: state.statuses, integrations: state.integrations, marks: state.viewing ? marksFor(state.viewing) : null });
  const details = detailsPanel([boardFacts(board), layoutSwitcher(board), historyPanel()]);
  // PAGE-2: a change keeps the tiles it does not touch (an iframe is not reloaded, a notebook not re-rendered).
  const current = root.querySelector<HTMLElement>(':scope > .workspace > main.board');
  if (current && patchBoard(current, grid)) {
    root.querySelector(':scope > header')!.replaceWith(header);
    root.querySelector(':scope > .workspace > .details')!.replaceWith(details);
    fitAppNames(current); // PAGE-11
    return;
  }
  root.replaceChildren(header, el('div', { className: 'workspace' }, [grid, details]));
  fitAppNames(grid); // PAGE-11
}

async function refresh(): Promise<void> {
  if ((await loadBoard()) === 'missing') return notFound();
  render();
  followStatuses();
}

/** PAGE-3: a missing board and one the caller may not view look the same; signing in may show it. */
function notFound(): void {
  state.feed?.close();
  document.title = 'Board not found';
  const form = signInForm(() => void start()); // NAV-4
  root.replaceChildren(el('h1', { text: 'Board not found' }), el('p', { text: 'It does not exist, or you may not see it. Private boards show after signing in.' }), form);
  void drawTopbar(boardName, { signIn: false });
  void autoSignIn(); // OIDC-6
}

/** PAGE-2: the page follows the change feed; a change, or a reset, reads the board again. */
function follow(boardId: string): void {
  state.feed?.close();
  const feed = new EventSource(`/api/boards/${encodeURIComponent(boardId)}/events`);
  const again = () => void refresh();
  feed.addEventListener('change', again);
  feed.addEventListener('reset', again);
  feed.addEventListener('deleted', () => {
    feed.close();
    notFound();
  });
  state.feed = feed;
}

/**
 * PING-5: the server's last reachability checks of the apps whose widgets ask for them, redrawn in place. Asked when
 * the page opens and whenever the set of pinged apps changes (a widget added live), then on nextPoll's schedule.
 */
let statusTimer: number | undefined;
let poll = firstPoll();
let askedFor = '';
let asking = 0;
const pingedApps = (board: Board | null) =>
  [...new Set((board?.items ?? []).filter((item) => item.kind === 'app' && item.options.pingEnabled === true).map((item) => String(item.options.appId)))].sort().join(' ');

async function loadStatuses(): Promise<void> {
  window.clearTimeout(statusTimer);
  const board = state.board;
  askedFor = pingedApps(board);
  if (!board || !askedFor) return;
  const ask = ++asking;
  let answer: { status: number; retryAfter: string | null; unknown: boolean };
  try {
    const { status, body, headers } = await api<{ statuses: AppStatusView[] }>(`/api/boards/${encodeURIComponent(board.id)}/apps/status`);
    if (status === 200) {
      state.statuses = new Map(body.statuses.map((entry) => [entry.appId, entry]));
      updatePingDots(state.statuses);
    }
    answer = { status, retryAfter: headers.get('Retry-After'), unknown: status === 200 && body.statuses.some((entry) => entry.state === 'unknown') };
  } catch {
    answer = { status: 0, retryAfter: null, unknown: false };
  }
  if (ask !== asking) return; // a newer ask (the pinged apps changed meanwhile) schedules the next one
  const next = nextPoll(poll, answer, Date.now());
  poll = next.state;
  statusTimer = window.setTimeout(() => void loadStatuses(), next.delayMs);
}

/** A change that adds or removes a pinged app asks at once (the new dot shows the server's check, not "Not checked yet"). */
function followStatuses(): void {
  if (pingedApps(state.board) === askedFor) return;
  poll = firstPoll();
  void loadStatuses();
}

async function start(served: Served | null = null): Promise<void> {
  if ((await loadBoard(served)) === 'missing') return notFound();
  performance.mark('tessera:board-loaded');
  render();
  performance.mark('tessera:board-rendered'); // VIEW-7: what scripts/bench/page-render.ts measures
  // VIEW-7: the frame after the next one starts once the drawn board has been laid out and painted.
  requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('tessera:board-painted')));
  void drawTopbar(boardName); // NAV-3, NAV-4
  pageTools({ apps: () => state.apps, webSearchUrl: () => (state.board as { webSearchUrl?: unknown } | null)?.webSearchUrl }); // THEMEVIEW-2, SEARCH-1
  follow(state.board!.id);
  followStatuses();
}

window.addEventListener('resize', () => {
  if (!state.board || state.chosen) return;
  const fitting = layoutForWidth(state.board, window.innerWidth);
  if (fitting !== state.layoutId) {
    state.layoutId = fitting;
    render();
  }
});

void start(takeServed());
