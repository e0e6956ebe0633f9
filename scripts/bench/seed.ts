/**
 * The benchmark's board over HTTP: `count` 1x1 clock items packed row by row in the board's empty section, on 3
 * layouts, written with one PUT (up to the item limit, 10,000; such a body is about 6 MiB, under the default
 * BODY_LIMIT of 10 MiB). Used by scripts/bench/run.ts and scripts/bench/startup.ts.
 */

export type Api = (method: string, urlPath: string, body?: unknown) => Promise<any>;

/** JSON calls against `base` with the API key; throws on any status but 2xx. */
export function apiClient(base: string, apiKey: string): Api {
  return async (method, urlPath, body) => {
    const response = await fetch(base + urlPath, {
      method,
      headers: { ApiKey: apiKey, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${urlPath} -> ${response.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  };
}

export const layoutsSpec = [
  { name: 'Base', columnCount: 12, breakpoint: 0 },
  { name: 'Tablet', columnCount: 6, breakpoint: 768 },
  { name: 'Phone', columnCount: 3, breakpoint: 1400 },
];

/** A board of `count` 1x1 clock items packed row by row in its empty section, on 3 layouts; returns the PUT's document. */
export async function seedBoard(api: Api, name: string, count: number): Promise<any> {
  const { boardId } = await api('POST', '/api/boards', { name, columnCount: 12, isPublic: false });
  let board = await api('GET', `/api/boards/${boardId}`);
  board = await api('PATCH', `/api/boards/${boardId}/layouts`, {
    layouts: layoutsSpec.map((spec, i) => ({ id: i === 0 ? board.layouts[0].id : `new-${i}`, ...spec })),
  });
  const section = board.sections.find((s: any) => s.kind === 'empty');
  const items = Array.from({ length: count }, (_, i) => ({
    id: `item-${name}-${i}`,
    kind: 'clock',
    options: { showSeconds: i % 2 === 0 },
    integrationIds: [],
    advancedOptions: { title: null, customCssClasses: [], borderColor: '' },
    layouts: board.layouts.map((layout: any) => ({
      layoutId: layout.id,
      sectionId: section.id,
      xOffset: i % layout.columnCount,
      yOffset: Math.floor(i / layout.columnCount),
      width: 1,
      height: 1,
    })),
  }));
  return api('PUT', `/api/boards/${boardId}`, { sections: board.sections, items });
}

/**
 * A board file (FILE-1) of `items` clocks on one 12-column layout, named `name`, its ids unique to `round`; `changed`
 * flips the first clock's option. The fleet benchmarks send sets of them to `POST /api/boards/apply`.
 */
export function clockBoardFile(name: string, round: number, items: number, changed = false) {
  const section = `s${round}x${name.replace(/[^a-z0-9]/g, '')}`;
  return {
    apiVersion: 'tessera/v1',
    kind: 'Board',
    name,
    layouts: [{ name: 'Base', columnCount: 12, breakpoint: 0 }],
    sections: [{ id: section, kind: 'empty', xOffset: 0, yOffset: 0 }],
    items: Array.from({ length: items }, (_, i) => ({
      id: `${section}i${i}`,
      kind: 'clock',
      options: { is24HourFormat: !(changed && i === 0), customTitle: `clock ${i}` },
      layouts: [{ layout: 'Base', sectionId: section, xOffset: (i % 6) * 2, yOffset: Math.floor(i / 6), width: 2, height: 1 }],
    })),
  };
}

/**
 * A public board of one systemResources widget per integration, each bound to its own (2x2 tiles in a row): the board
 * the widget-data benchmarks read live data from. Returns the board's id and the items' ids, in the integrations' order.
 */
export async function seedLiveBoard(api: Api, name: string, integrationIds: readonly string[]): Promise<{ boardId: string; itemIds: string[] }> {
  const { boardId } = await api('POST', '/api/boards', { name, columnCount: 12, isPublic: true });
  const doc = await api('GET', `/api/boards/${boardId}`);
  const itemIds = integrationIds.map((_, i) => `live${i}${Math.random().toString(36).slice(2, 10)}`);
  await api('PUT', `/api/boards/${boardId}`, {
    sections: doc.sections,
    items: itemIds.map((id, i) => ({
      id,
      kind: 'systemResources',
      options: {},
      integrationIds: [integrationIds[i]],
      advancedOptions: { title: null, customCssClasses: [], borderColor: '' },
      layouts: [{ layoutId: doc.layouts[0].id, sectionId: doc.sections[0].id, xOffset: i * 2, yOffset: 0, width: 2, height: 2 }],
    })),
  });
  return { boardId, itemIds };
}
