import type { Db } from '../db/database';
import type { Principal } from '../identity/principal';
import { whereAmong } from '../db/idList';

export interface IntegrationAccessFlags {
  hasUseAccess: boolean;
  hasInteractAccess: boolean;
  hasFullAccess: boolean;
}

type Level = 'use' | 'interact' | 'full';

/**
 * Integration permission resolution (ACCESS-4, BIND-5: including the global integration-* permissions):
 * use = any own user or group row, or integration-use-all; interact = an interact/full row or
 * integration-interact-all; full = a full row or integration-full-all.
 * The single source of truth for both GET /api/integrations and the binding check of the board routes.
 */
export function decideIntegrationAccess(principal: Principal | null, ownLevels: readonly Level[]): IntegrationAccessFlags {
  const has = (permission: 'integration-use-all' | 'integration-interact-all' | 'integration-full-all') =>
    principal?.permissions.has(permission) ?? false;
  const hasFullAccess = ownLevels.includes('full') || has('integration-full-all');
  const hasInteractAccess = ownLevels.includes('full') || ownLevels.includes('interact') || has('integration-interact-all');
  const hasUseAccess = ownLevels.length > 0 || has('integration-use-all');
  return { hasUseAccess, hasInteractAccess, hasFullAccess };
}

/** Access flags for the given integrations (or every integration when ids is null), keyed by id. */
export async function loadIntegrationAccess(
  db: Db,
  principal: Principal | null,
  ids: readonly string[] | null,
): Promise<Map<string, IntegrationAccessFlags>> {
  const userId = principal?.userId ?? '';
  const groupIds = principal && principal.groupIds.length > 0 ? principal.groupIds : [''];
  const query = db('integrations').select('integrations.id');
  if (ids !== null) query.modify(whereAmong, 'integrations.id', ids);
  const [integrations, userRows, groupRows] = await Promise.all([
    query as Promise<{ id: string }[]>,
    db('integration_user_permissions').where({ userId }).modify((q) => {
      if (ids !== null) q.modify(whereAmong, 'integrationId', ids);
    }) as Promise<{ integrationId: string; permission: Level }[]>,
    db('integration_group_permissions').whereIn('groupId', groupIds).modify((q) => {
      if (ids !== null) q.modify(whereAmong, 'integrationId', ids);
    }) as Promise<{ integrationId: string; permission: Level }[]>,
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
