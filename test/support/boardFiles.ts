import { widgetKinds } from '../../src/widgets/registry';
import { appOptions } from '../../src/widgets/options';
import { expectOk, item, position } from '../boards-document/helpers';
import type { TestServer } from './server';
import { unique } from './unique';

/**
 * A board file (FILE-1) of `clocks` clock items in one empty section of a 12-column Base layout: the unit the fleet
 * tests apply, provision and plan. `stable` derives the section and item ids from the name, so the same file written
 * again is the same board (a re-apply plans nothing); otherwise every call has fresh ids.
 */
export function clockBoardFile(name: string, clocks = 2, { stable = false }: { stable?: boolean } = {}) {
  const section = stable ? `sec${name.replace(/[^a-z0-9]/gi, '')}` : unique('sec');
  return {
    apiVersion: 'tessera/v1',
    kind: 'Board',
    name,
    layouts: [{ name: 'Base', columnCount: 12, breakpoint: 0 }],
    sections: [{ id: section, kind: 'empty', xOffset: 0, yOffset: 0 }],
    items: Array.from({ length: clocks }, (_, i) => ({
      id: stable ? `${section}clk${i}` : unique('clk'),
      kind: 'clock',
      options: { is24HourFormat: true },
      layouts: [{ layout: 'Base', sectionId: section, xOffset: (i % 6) * 2, yOffset: Math.floor(i / 6), width: 2, height: 1 }],
    })),
  };
}

/** A board holding one item of every widget kind of the registry; kinds that name apps name two apps. */
export async function everyKindBoard(server: TestServer) {
  const name = unique('kinds-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false } }), 201);
  const start = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const [layoutId, sectionId] = [start.layouts[0].id, start.sections[0].id];
  const apps = await Promise.all(
    ['Media', 'Wiki'].map(async (app) => expectOk(await server.call('POST', '/api/apps', { body: { name: unique(app), href: `https://${app.toLowerCase()}.example.com`, iconUrl: 'https://example.com/icon.png' } }), 201).appId),
  );
  const items = widgetKinds.map((kind, i) => {
    const options: Record<string, unknown> = {};
    for (const { name: option, list } of appOptions(kind)) options[option] = list ? apps : apps[0];
    return item(unique('w'), [position(layoutId, sectionId, (i % 6) * 2, Math.floor(i / 6), 2, 1)], { kind, options });
  });
  expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections: start.sections, items } }));
  return { boardId, name };
}
