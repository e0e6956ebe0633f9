import type { BoardChanges, ElementChanges } from '../document/changes';

export interface CountedChanges {
  added: number;
  removed: number;
  updated: number;
}

/** What an entry changed, in counts (HIST-2): the shape of `summary` in history entries and change events. */
export interface HistorySummary {
  sections: CountedChanges;
  items: CountedChanges;
  layouts: CountedChanges;
  /** Board fields that changed (name, isPublic, settings columns). */
  fields: string[];
  /** What a restore could not put back (HIST-6); `appIds` is missing in entries written before it was reported. */
  dropped?: { integrationIds: string[]; itemIds: string[]; appIds?: string[] };
}

const count = (changes: ElementChanges): CountedChanges => ({
  added: changes.added.length,
  removed: changes.removed.length,
  updated: changes.updated.length,
});

export function summarize(changes: BoardChanges, dropped?: HistorySummary['dropped']): HistorySummary {
  return {
    sections: count(changes.sections),
    items: count(changes.items),
    layouts: count(changes.layouts),
    fields: Object.keys(changes.board),
    ...(dropped ? { dropped } : {}),
  };
}
