/**
 * VIEW-1, LIVEVIEW-1: the live widget kinds: the kind's title over a body the live controller fills from the widget
 * request path and refreshes (src/pages/client/live/). PAGE-13: the views and the controller are a script of their
 * own (live.js); board.js draws each live tile's shell ("Loading…") and, once the board has painted, loads live.js,
 * which fills every shell still on the page. A board without a live tile never loads it.
 */
import { el } from '../dom';
import { liveKindNames } from '../live/kinds';
import type { LiveScript } from '../live/script';
import { liveShell } from '../live/shell';
import { afterFirstPaint, liveScriptUrl, loadScript } from '../scripts';
import { renderClock } from './clock';
import { kindTitle } from './titles';
import { flag, type WidgetContext, type WidgetItem } from './types';

/** The kinds drawn from live data. */
export const liveKinds: readonly string[] = liveKindNames;

const loaded = () => (window as unknown as { tesseraLive?: LiveScript }).tesseraLive;
const pending = new Map<HTMLElement, { boardId: string; item: WidgetItem }>();

async function fillPending(): Promise<void> {
  try {
    await loadScript(liveScriptUrl);
  } catch {
    for (const body of pending.keys()) {
      body.setAttribute('aria-busy', 'false');
      body.replaceChildren(el('p', { className: 'live-state', text: 'The live data could not be shown.' }));
    }
    pending.clear(); // the next drawing of a live tile tries again
    return;
  }
  const script = loaded()!;
  for (const [body, { boardId, item }] of pending) if (body.isConnected) script.fill(boardId, item, body);
  pending.clear();
}

function liveSlot(boardId: string, item: WidgetItem): HTMLElement {
  const body = liveShell(item);
  const script = loaded();
  if (script) {
    script.fill(boardId, item, body);
    return body;
  }
  if (pending.size === 0) afterFirstPaint(() => void fillPending());
  pending.set(body, { boardId, item });
  return body;
}

export function renderLive(item: WidgetItem, ctx: WidgetContext): HTMLElement[] {
  return [el('span', { className: 'widget-title', text: kindTitle(item.kind) }), liveSlot(ctx.boardId, item)];
}

/** `clock`, with the weather at its location under the time when `showWeather` (WX-5). */
export function renderClockWithWeather(item: WidgetItem, ctx: WidgetContext): HTMLElement[] {
  const clock = renderClock(item);
  return flag(item.options, 'showWeather', false) ? [...clock, liveSlot(ctx.boardId, item)] : clock;
}
