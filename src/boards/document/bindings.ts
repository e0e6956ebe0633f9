import type { Knex } from 'knex';
import { badRequest, forbidden } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { usableIntegrationIds } from '../../integrations/access';
import { listIds, shownIds } from './validate';
import { whereAmong } from '../../db/idList';

/** 400 `Invalid integration IDs: <ids>` for ids that are not integrations. One query, also for an empty list. */
export async function assertIntegrationsExist(q: Knex, ids: readonly string[]): Promise<void> {
  const unique = [...new Set(ids)];
  const found: { id: string }[] = await q('integrations').modify(whereAmong, 'id', unique).select('id');
  const known = new Set(found.map((row) => row.id));
  const missing = unique.filter((id) => !known.has(id));
  if (missing.length > 0) throw badRequest(`Invalid integration IDs: ${listIds(missing)}`, { integrationIds: shownIds(missing), count: missing.length });
}

/**
 * BIND-1..5: a binding grants access to the integration's data, so every id the write adds on top of
 * `alreadyBound` (the ids bound anywhere on the board) needs use access (a direct or group grant, or a global
 * integration permission; src/integrations/access.ts). 403 `No access to integrations: <ids>` otherwise.
 */
export async function assertCanBind(
  q: Knex,
  principal: Principal,
  requested: readonly string[],
  alreadyBound: ReadonlySet<string> = new Set(),
): Promise<void> {
  const added = [...new Set(requested)].filter((id) => !alreadyBound.has(id));
  if (added.length === 0) return;
  const usable = await usableIntegrationIds(q, principal, added);
  const refused = added.filter((id) => !usable.has(id));
  if (refused.length > 0) throw forbidden(`No access to integrations: ${listIds(refused)}`, { integrationIds: shownIds(refused), count: refused.length });
}
