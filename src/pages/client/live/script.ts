/**
 * PAGE-13, LIVEVIEW-1: the live views as a script of their own (/assets/live.js, built by `npm run generate`):
 * board.js draws a live tile's shell and loads this script once the board has painted, only for a board that has a
 * live tile; the script then fills the shells (widgets/live.ts).
 */
import type { WidgetItem } from '../widgets/types';
import { liveBody } from './controller';
import type { LiveKindName } from './kinds';
import { clockWeatherView, liveViews } from './views';

export interface LiveScript {
  /** Draws `item`'s live data into `body` (its shell) and keeps it up to date. */
  fill(boardId: string, item: WidgetItem, body: HTMLElement): void;
}

const script: LiveScript = {
  fill(boardId, item, body) {
    const view = item.kind === 'clock' ? clockWeatherView : liveViews[item.kind as LiveKindName];
    if (view) liveBody(boardId, item, view, body);
  },
};

(window as unknown as { tesseraLive?: LiveScript }).tesseraLive = script;
