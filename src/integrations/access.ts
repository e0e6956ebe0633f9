import type { GrantTables } from '../access/grants';
import { resolveLevels } from '../access/levels';
import type { Db } from '../db/database';
import type { Principal } from '../identity/principal';
import { whereAmong } from '../db/idList';
import { independentReads } from '../db/independentReads';
import { Integration, IntegrationGroupPermission, IntegrationUserPermission } from '../db/models';

export interface IntegrationAccessFlags {
  hasUseAccess: boolean;
  hasInteractAccess: boolean;
  hasFullAccess: boolean;
}

export type IntegrationPermissionLevel = 'use' | 'interact' | 'full';
type Level = IntegrationPermissionLevel;
export const integrationPermissionLevels: readonly Level[] = ['use', 'interact', 'full'];
export const integrationGrantTables: GrantTables<Level> = {
  userModel: IntegrationUserPermission,
  groupModel: IntegrationGroupPermission,
  column: 'integrationId',
  levels: integrationPermissionLevels,
};

/**
 * Integration permission resolution (ACCESS-4, BIND-5: including the global integration-* permissions): the access
 * lattice over use/interact/full. The single source of truth for both GET /api/integrations and the binding check
 * of the board routes.
 */
export function decideIntegrationAccess(principal: Principal | null, ownLevels: readonly Level[]): IntegrationAccessFlags {
  const held = resolveLevels(integrationPermissionLevels, ownLevels, (level) => principal?.permissions.has(`integration-${level}-all`) ?? false);
  return { hasUseAccess: held.use, hasInteractAccess: held.interact, hasFullAccess: held.full };
}

/** Access flags for the given integrations (or every integration when ids is null), keyed by id. */
export async function loadIntegrationAccess(
  db: Db,
  principal: Principal | null,
  ids: readonly string[] | null,
): Promise<Map<string, IntegrationAccessFlags>> {
  const userId = principal?.userId ?? '';
  const groupIds = principal && principal.groupIds.length > 0 ? principal.groupIds : [''];
  const query = Integration.query(db).select(Integration.col('id'));
  if (ids !== null) query.modify(whereAmong, Integration.col('id'), ids);
  const [integrations, userRows, groupRows] = await independentReads(db, [
    () => query.castTo<{ id: string }[]>(),
    () => IntegrationUserPermission.query(db).where({ userId }).modify((q) => {
      if (ids !== null) q.modify(whereAmong, 'integrationId', ids);
    }).castTo<{ integrationId: string; permission: Level }[]>(),
    () => IntegrationGroupPermission.query(db).whereIn('groupId', groupIds).modify((q) => {
      if (ids !== null) q.modify(whereAmong, 'integrationId', ids);
    }).castTo<{ integrationId: string; permission: Level }[]>(),
  ]);
  const levels = new Map<string, Level[]>();
  for (const row of [...userRows, ...groupRows]) {
    levels.set(row.integrationId, [...(levels.get(row.integrationId) ?? []), row.permission]);
  }
  return new Map(integrations.map((i) => [i.id, decideIntegrationAccess(principal, levels.get(i.id) ?? [])]));
}

/** The ids among `ids` the caller may bind to an item (hasUseAccess). Unknown ids are not usable. */
export async function usableIntegrationIds(db: Db, principal: Principal | null, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const flags = await loadIntegrationAccess(db, principal, ids);
  return new Set([...flags].filter(([, f]) => f.hasUseAccess).map(([id]) => id));
}
