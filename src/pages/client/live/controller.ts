/**
 * LIVEVIEW-1..3: the live tiles of the board page. Each live tile asks the widget request path
 * (`GET /api/boards/{id}/items/{itemId}/data`, WDATA-1) when it is drawn, then again on the schedule of schedule.ts,
 * never while the tab is hidden (a hidden tab asks once it is shown again). The data is drawn by the kind's view
 * (views.ts), as text; a failure keeps the last data drawn and says since when it is not updated.
 */
import type { components } from '../../../../generated/api';
import { api } from '../api';
import { el } from '../dom';
import type { WidgetItem } from '../widgets/types';
import { nextLiveAsk } from './schedule';
import { liveShell } from './shell';

export type Envelope = components['schemas']['WidgetDataEnvelope'];
export type Result = Envelope['results'][number];

/** What a kind's view may do besides drawing: take an action on an integration (WDATA-9), answering a message. */
export type Act = (integrationId: string, action: string, ids: string[]) => Promise<string | null>;

export interface LiveView {
  /** Draws the results of one answer (at least one). */
  draw: (results: Result[], item: WidgetItem, act: Act) => (Node | string)[];
  /** What the tile says when the answer has no result (nothing bound, nothing named in the options). */
  empty: (item: WidgetItem) => string;
}

interface Entry {
  boardId: string;
  item: WidgetItem;
  view: LiveView;
  /**
   * The tile bodies showing this item: a redraw builds a new one, and the board keeps either it or the old one
   * (PAGE-2 keeps an unchanged tile), so both are drawn until the next ask drops the one not on the page.
   */
  bodies: Set<HTMLElement>;
  /** The options the last answer was asked for: a tile redrawn with the same ones shows it at once. */
  optionsKey: string;
  last: Envelope | null;
  /** Why the last ask failed (the data shown is older), or null. */
  failure: string | null;
  failures: number;
  timer: number | undefined;
  /** The tab was hidden when the tile was due: asked when it is shown. */
  due: boolean;
  asking: number;
}

const entries = new Map<string, Entry>();

const timeOf = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleTimeString() : null);

function draw(entry: Entry): void {
  for (const body of entry.bodies) drawInto(entry, body);
}

function drawInto(entry: Entry, body: HTMLElement): void {
  const { last } = entry;
  const scroll = body.scrollTop;
  const parts: (Node | string)[] = [];
  if (last === null) {
    parts.push(el('p', { className: 'live-state', text: entry.failure ? `Could not load the data: ${entry.failure} Trying again.` : 'Loading…' }));
  } else if (last.results.length === 0) {
    parts.push(el('p', { className: 'live-state', text: entry.view.empty(entry.item) }));
  } else {
    parts.push(...entry.view.draw(last.results, entry.item, (integrationId, action, ids) => act(entry, integrationId, action, ids)));
  }
  if (last !== null && entry.failure) {
    const since = timeOf(last.results.find((result) => result.fetchedAt)?.fetchedAt);
    parts.push(el('p', { className: 'live-stale', role: 'status', text: `Not updated${since ? ` since ${since}` : ''}: ${entry.failure} Trying again.` }));
  }
  body.setAttribute('aria-busy', last === null && !entry.failure ? 'true' : 'false');
  body.replaceChildren(...parts);
  body.scrollTop = scroll;
}

function failureText(status: number, body: unknown): string {
  const message = typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : null;
  if (status === 0) return 'the server did not answer.';
  if (status === 429) return 'too many requests.';
  return `${message ?? `the server answered ${status}`}.`;
}

async function ask(entry: Entry): Promise<void> {
  window.clearTimeout(entry.timer);
  for (const body of entry.bodies) if (!body.isConnected) entry.bodies.delete(body);
  if (entries.get(entry.item.id) !== entry || entry.bodies.size === 0) {
    if (entries.get(entry.item.id) === entry) entries.delete(entry.item.id); // the tile left the page
    return;
  }
  if (document.hidden) {
    entry.due = true;
    return;
  }
  entry.due = false;
  const turn = ++entry.asking;
  let answer: { status: number; retryAfter: string | null; ttlSeconds: number; allFailed: boolean };
  try {
    const { status, body, headers } = await api<Envelope>(`/api/boards/${encodeURIComponent(entry.boardId)}/items/${encodeURIComponent(entry.item.id)}/data`);
    if (turn !== entry.asking) return;
    if (status === 200) {
      entry.last = body;
      entry.failure = null;
    } else if (status === 404) {
      entry.last = null;
      entry.failure = null;
      for (const body of entry.bodies) body.replaceChildren(el('p', { className: 'live-state', text: 'This widget is not on the board any more.' }));
    } else {
      entry.failure = failureText(status, body);
    }
    const ok = status === 200;
    answer = { status, retryAfter: headers.get('Retry-After'), ttlSeconds: ok ? body.ttlSeconds : 0, allFailed: ok && body.results.length > 0 && body.results.every((result) => result.status === 'error') };
  } catch {
    if (turn !== entry.asking) return;
    entry.failure = failureText(0, null);
    answer = { status: 0, retryAfter: null, ttlSeconds: entry.last?.ttlSeconds ?? 0, allFailed: true };
  }
  if (answer.status !== 404) draw(entry);
  const interval = typeof entry.item.options.refreshInterval === 'number' ? entry.item.options.refreshInterval : undefined;
  const next = nextLiveAsk(answer, entry.failures, Date.now(), interval);
  entry.failures = next.failures;
  if (next.delayMs !== null) entry.timer = window.setTimeout(() => void ask(entry), next.delayMs);
}

/** WDATA-9 from the page: the action, then the tile asked again (the server dropped the integration's cached answers). */
async function act(entry: Entry, integrationId: string, action: string, ids: string[]): Promise<string | null> {
  const { status, body } = await api<{ status?: string; message?: string | null }>(
    `/api/boards/${encodeURIComponent(entry.boardId)}/items/${encodeURIComponent(entry.item.id)}/data/actions`,
    { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ integrationId, action, ids }) },
  ).catch(() => ({ status: 0, body: undefined }));
  void ask(entry);
  if (status === 200 && body?.status === 'ok') return null;
  return body?.message ?? (status === 0 ? 'The server did not answer.' : `The action failed (${status}).`);
}

/**
 * The body of a live tile for `item` on board `boardId`, drawn by `view`: `body`, the tile's shell board.js drew
 * (PAGE-13), or a new one. A tile drawn again with the same options (a board change elsewhere) shows the data it had
 * at once and keeps its schedule; anything else asks now.
 */
export function liveBody(boardId: string, item: WidgetItem, view: LiveView, body: HTMLElement = liveShell(item)): HTMLElement {
  const optionsKey = JSON.stringify(item.options);
  const before = entries.get(item.id);
  if (before && before.boardId === boardId && before.optionsKey === optionsKey && before.last !== null) {
    before.bodies.add(body);
    before.item = item;
    drawInto(before, body);
    return body;
  }
  if (before) window.clearTimeout(before.timer);
  const entry: Entry = { boardId, item, view, bodies: new Set([body]), optionsKey, last: null, failure: null, failures: 0, timer: undefined, due: false, asking: 0 };
  entries.set(item.id, entry);
  draw(entry);
  entry.timer = window.setTimeout(() => void ask(entry), 0); // once the tile is on the page
  return body;
}

// LIVEVIEW-2: a hidden tab asks nothing; shown again, it asks for every tile that came due meanwhile.
document.addEventListener('visibilitychange', () => {
  if (document.hidden) return;
  for (const entry of entries.values()) if (entry.due) void ask(entry);
});
