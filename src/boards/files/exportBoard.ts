/**
 * GET /api/boards/{id}/export (FILE-1) and GET /api/boards/by-name/{name} (FILE-2): reading a board as a file, and
 * finding a board by its name.
 */
import type { Knex } from 'knex';
import { readApp } from '../../apps/apps';
import type { AppFields } from '../../apps/validation';
import { placedAppIds } from '../../apps/placements';
import { notFound } from '../../core/errors';
import { readInstanceId } from '../../db/instance';
import type { Principal } from '../../identity/principal';
import { listVisibleIntegrations } from '../../integrations/integrations';
import { assertBoardAccess } from '../access';
import { boardIdByName } from '../management/names';
import { readableItems } from '../document/model';
import { loadBoardState } from '../document/store';
import { latestPosition } from '../history/store';
import { BoardFile, toBoardFile } from './file';

/** The board with this name (letter case ignored, as names are unique that way); 404 `Board not found` when none. */
export async function findBoardIdByName(q: Knex, name: string): Promise<string> {
  const id = await boardIdByName(q, name);
  if (id === undefined) throw notFound('Board not found');
  return id;
}

/** FILE-1: the board as a file, read in one snapshot. View access (ACCESS-2); 404 `Board not found` otherwise. */
export async function exportBoardFile(db: Knex, principal: Principal | null, boardId: string): Promise<BoardFile> {
  await assertBoardAccess(db, boardId, principal, 'view');
  return db.transaction(
    async (trx) => {
      const state = await loadBoardState(trx, boardId, principal);
      if (!state) throw notFound('Board not found');
      const appIds = [...new Set(readableItems(state).flatMap(placedAppIds))];
      const apps = new Map<string, AppFields>();
      // An app's fields go into the file only when the caller may read the app (APP-3); otherwise its id stays.
      for (const id of appIds) {
        const app = await readApp(trx, principal, id).catch(() => null);
        if (app) apps.set(id, { name: app.name, description: app.description, iconUrl: app.iconUrl, href: app.href, pingUrl: app.pingUrl });
      }
      const visible = principal && state.bindings.length > 0 ? (await listVisibleIntegrations(trx, principal)).items : [];
      const bound = new Set(state.bindings.map((binding) => binding.integrationId));
      const integrations = new Map(visible.filter((entry) => bound.has(entry.id)).map((entry) => [entry.id, { name: entry.name, kind: entry.kind }]));
      return toBoardFile(state, {
        instanceId: await readInstanceId(trx),
        revision: (await latestPosition(trx, boardId))?.revision ?? null,
        exportedAt: new Date().toISOString(),
        apps,
        integrations,
      });
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}
