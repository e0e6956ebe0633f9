/**
 * LIVEVIEW-1, PAGE-13: the live widget kinds the page draws, by name only (no view, no DOM): board.js draws the
 * tiles of these kinds and loads their views (live.js, views.ts) only when the board has one.
 */
export const liveKindNames = ['downloads', 'systemResources', 'healthMonitoring', 'systemDisks', 'calendar', 'rssFeed', 'weather', 'dockerContainers', 'customApi'] as const;

export type LiveKindName = (typeof liveKindNames)[number];

