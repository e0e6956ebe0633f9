import type { TestServer } from '../support/server';
export { expectError } from '../support/expect';

import { unique } from '../support/unique';

export interface TestBoard {
  boardId: string;
  sectionId: string;
  layoutId: string;
}

/**
 * A board as POST /api/boards creates it (board row, one empty section, layout "Base" at breakpoint 0), inserted
 * directly so these tests do not depend on the board management routes.
 */
export async function createBoard(
  server: TestServer,
  options: { columns?: number; isPublic?: boolean; creatorId?: string | null; name?: string } = {},
): Promise<TestBoard> {
  const board: TestBoard = { boardId: unique('board'), sectionId: unique('section'), layoutId: unique('layout') };
  await server.db('boards').insert({
    id: board.boardId,
    name: options.name ?? unique('board-'),
    isPublic: options.isPublic ?? false,
    creatorId: options.creatorId ?? null,
  });
  await server.db('sections').insert({ id: board.sectionId, boardId: board.boardId, kind: 'empty', xOffset: 0, yOffset: 0 });
  await server.db('layouts').insert({ id: board.layoutId, boardId: board.boardId, name: 'Base', columnCount: options.columns ?? 12, breakpoint: 0 });
  return board;
}

export async function createIntegration(server: TestServer, kind = 'mock'): Promise<string> {
  const id = unique('integration');
  await server.db('integrations').insert({ id, name: `Integration ${id}`, kind, url: 'http://127.0.0.1:1' });
  return id;
}

export async function grantBoard(server: TestServer, boardId: string, userId: string, permission: 'view' | 'modify' | 'full'): Promise<void> {
  await server.db('board_user_permissions').insert({ boardId, userId, permission });
}

export async function grantIntegration(server: TestServer, integrationId: string, userId: string, permission: 'use' | 'interact' | 'full' = 'use') {
  await server.db('integration_user_permissions').insert({ integrationId, userId, permission });
}


export function expectOk(result: { status: number; body: any }, status = 200) {
  if (result.status !== status) throw new Error(`expected ${status}, got ${result.status}: ${JSON.stringify(result.body)}`);
  return result.body;
}

export function position(layoutId: string, sectionId: string, x = 0, y = 0, width = 1, height = 1) {
  return { layoutId, sectionId, xOffset: x, yOffset: y, width, height };
}

export function item(id: string, layouts: ReturnType<typeof position>[], extra: Record<string, unknown> = {}) {
  return {
    id,
    kind: 'clock',
    options: {},
    integrationIds: [] as string[],
    advancedOptions: { title: null, customCssClasses: [] as string[], borderColor: '' },
    layouts,
    ...extra,
  };
}

export const emptySection = (id: string, yOffset = 0) => ({ id, kind: 'empty', yOffset, xOffset: 0 });
export const categorySection = (id: string, name: string, yOffset = 1) => ({ id, kind: 'category', name, yOffset, xOffset: 0, collapsed: false });

export async function getBoard(server: TestServer, boardId: string, key?: string | null) {
  return server.call('GET', `/api/boards/${boardId}`, key === undefined ? {} : { key });
}

/** GET, then the {sections, items} part of it. */
export async function readContent(server: TestServer, boardId: string) {
  const result = await getBoard(server, boardId);
  const doc = expectOk(result);
  return { doc, sections: doc.sections as any[], items: doc.items as any[], etag: result.headers.get('etag') as string };
}
