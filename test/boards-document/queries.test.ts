import { unique } from '../support/unique';
import { useTestServer } from '../support/server';
import { createBoard, createIntegration, emptySection, expectOk, item, position, readContent } from './helpers';
import { countQueries as countServerQueries } from '../support/queries';

// HOOK-12: no webhook delivery rounds on this instance, whose queries would be counted with the route's.
const server = useTestServer({ WEBHOOK_POLL_MS: '0' });
const countQueries = (action: () => Promise<unknown>) => countServerQueries(server, action);

/** A board with `size` items spread over sections, dynamic sections and three layouts, with bindings. */
async function buildBoard(size: number, integrations: string[]) {
  const board = await createBoard(server, { columns: 12 });
  const layouts = [board.layoutId, unique('mid'), unique('small')];
  await server.db('layouts').insert([
    { id: layouts[1], boardId: board.boardId, name: 'Mid', columnCount: 6, breakpoint: 600 },
    { id: layouts[2], boardId: board.boardId, name: 'Small', columnCount: 3, breakpoint: 300 },
  ]);
  const sectionCount = Math.max(2, Math.ceil(size / 10));
  const sections: any[] = [emptySection(board.sectionId)];
  for (let n = 1; n < sectionCount; n++) sections.push({ id: `${board.boardId}-s${n}`, kind: 'category', name: `C${n}`, yOffset: n, xOffset: 0, collapsed: false });
  for (let n = 0; n < Math.max(1, size / 20); n++) {
    sections.push({
      id: `${board.boardId}-d${n}`,
      kind: 'dynamic',
      options: { title: `D${n}` },
      layouts: layouts.map((layoutId) => ({ layoutId, parentSectionId: board.sectionId, xOffset: 0, yOffset: 100 + n, width: 2, height: 2 })),
    });
  }
  const items = Array.from({ length: size }, (_, n) =>
    item(
      `${board.boardId}-i${n}`,
      layouts.map((layoutId, l) => position(layoutId, sections[n % sectionCount].id, n % (3 + l), Math.floor(n / 3), 1, 1)),
      { options: { n }, integrationIds: [integrations[n % 3]] },
    ),
  );
  expectOk(await server.call('PUT', `/api/boards/${board.boardId}`, { body: { sections, items } }));
  return { board, layouts };
}

/** The same kinds of change on any board: update everything, add and remove an item and a section, move a binding. */
function changed(doc: any, boardId: string, layouts: string[], integrations: string[]) {
  const sections = [...doc.sections.filter((s: any) => s.id !== `${boardId}-s1`), emptySection(unique('new-section'), 99)];
  const keptSectionIds = new Set(sections.map((s: any) => s.id));
  const items = doc.items
    .filter((i: any) => i.id !== `${boardId}-i1`)
    .map((i: any, n: number) => ({
      ...i,
      options: { ...i.options, touched: true },
      integrationIds: n === 0 ? [integrations[1]] : i.integrationIds,
      layouts: i.layouts.filter((p: any) => keptSectionIds.has(p.sectionId)).map((p: any) => ({ ...p, xOffset: p.xOffset + 1 })),
    }));
  // integrations[3] is bound on neither board, so both saves run the binding access check.
  items.push(item(unique('new-item'), layouts.map((layoutId) => position(layoutId, sections[0].id, 0, 500)), { integrationIds: [integrations[2], integrations[3]] }));
  return { sections, items, expectedVersion: doc.version };
}

it('GET and PUT send the same number of queries for a small and a large board', async () => {
  const integrations = [await createIntegration(server), await createIntegration(server), await createIntegration(server), await createIntegration(server)];
  const small = await buildBoard(3, integrations);
  const large = await buildBoard(240, integrations);

  const getSmall = await countQueries(() => readContent(server, small.board.boardId));
  const getLarge = await countQueries(() => readContent(server, large.board.boardId));
  expect(getLarge).toBe(getSmall);

  const smallDoc = (await readContent(server, small.board.boardId)).doc;
  const largeDoc = (await readContent(server, large.board.boardId)).doc;
  expect(largeDoc.items).toHaveLength(240);
  const smallBody = changed(smallDoc, small.board.boardId, small.layouts, integrations);
  const largeBody = changed(largeDoc, large.board.boardId, large.layouts, integrations);
  let smallResult: any;
  let largeResult: any;
  const putSmall = await countQueries(async () => {
    smallResult = await server.call('PUT', `/api/boards/${small.board.boardId}`, { body: smallBody });
  });
  const putLarge = await countQueries(async () => {
    largeResult = await server.call('PUT', `/api/boards/${large.board.boardId}`, { body: largeBody });
  });
  expectOk(smallResult);
  const saved = expectOk(largeResult);
  expect(putLarge).toBe(putSmall);
  expect(putSmall).toBeGreaterThan(getSmall);
  expect(saved.items).toHaveLength(240);
  expect(saved.items.filter((i: any) => !i.id.startsWith('new-item')).every((i: any) => i.options.touched === true)).toBe(true);
  expect(saved.items.find((i: any) => i.id === `${large.board.boardId}-i0`).integrationIds).toEqual([integrations[1]]);
  // Fixed and small: authentication, access check, nine reads, checks, one statement per kind of change, nine reads.
  expect(getSmall).toBeLessThanOrEqual(15);
  expect(putSmall).toBeLessThanOrEqual(45);
});

it('the granular, layout, plan, history and export routes send the same number of queries for a small and a large board', async () => {
  const integrations = [await createIntegration(server), await createIntegration(server), await createIntegration(server), await createIntegration(server)];
  const small = await buildBoard(3, integrations);
  const large = await buildBoard(240, integrations);
  type Route = [name: string, status: number, request: (boardId: string, doc: any, revision: number) => ReturnType<typeof server.call>];
  const routes: Route[] = [
    ['PATCH item', 200, (id, doc) => server.call('PATCH', `/api/boards/${id}/items/${doc.items[0].id}`, { body: { options: { patched: true } } })],
    ['DELETE item', 200, (id, doc) => server.call('DELETE', `/api/boards/${id}/items/${doc.items[1].id}`)],
    ['POST items', 201, (id) => server.call('POST', '/api/boards/items', { body: { boardId: id, kind: 'clock' } })],
    ['POST section', 201, (id) => server.call('POST', `/api/boards/${id}/sections`, { body: emptySection(`${id}-added`, 50) })],
    ['PATCH section', 200, (id) => server.call('PATCH', `/api/boards/${id}/sections/${id}-added`, { body: emptySection(`${id}-added`, 51) })],
    ['DELETE section', 200, (id) => server.call('DELETE', `/api/boards/${id}/sections/${id}-added`)],
    [
      'PATCH layouts',
      200,
      (id, doc) => server.call('PATCH', `/api/boards/${id}/layouts`, { body: { layouts: doc.layouts.map((l: any, n: number) => ({ ...l, columnCount: n === 0 ? 10 : l.columnCount })) } }),
    ],
    ['POST plan', 200, (id, doc) => server.call('POST', `/api/boards/${id}/plan`, { body: { sections: doc.sections, items: doc.items } })],
    ['GET history', 200, (id) => server.call('GET', `/api/boards/${id}/history`)],
    ['GET revision', 200, (id, _doc, revision) => server.call('GET', `/api/boards/${id}/history/${revision}`)],
    ['GET diff', 200, (id, _doc, revision) => server.call('GET', `/api/boards/${id}/diff?from=${revision}`)],
    ['GET export', 200, (id) => server.call('GET', `/api/boards/${id}/export`)],
  ];
  const counts: Record<string, [number, number]> = {};
  for (const [name, status, request] of routes) {
    const measured: number[] = [];
    for (const { board } of [small, large]) {
      const { doc } = await readContent(server, board.boardId);
      const [newest] = expectOk(await server.call('GET', `/api/boards/${board.boardId}/history`)).entries;
      let result: any;
      measured.push(await countQueries(async () => {
        result = await request(board.boardId, doc, newest.revision - 1);
      }));
      expectOk(result, status);
    }
    counts[name] = [measured[0], measured[1]];
  }
  // One comparison, so that a failure names every route whose count grew with the board.
  expect(Object.fromEntries(Object.entries(counts).filter(([, [smallCount, largeCount]]) => smallCount !== largeCount))).toEqual({});
});
