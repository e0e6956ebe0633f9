import type { Knex } from 'knex';
import type { Principal } from '../identity/principal';
import { appOptions } from '../widgets/options';
import { loadAppAccess } from './access';
import { App, AppPlacement } from '../db/models';

/** An item as written: its id, kind and options (options are free-form JSON). */
export interface WrittenItem {
  id: string;
  kind: string;
  options: unknown;
}

/**
 * The app ids an item places (APP-3): the values of the options its kind declares as naming apps
 * (`src/widgets/options.ts`: an `app` widget's `options.appId`, the string entries of a `bookmarks` widget's
 * `options.items`). Any other kind or shape places nothing.
 */
export function placedAppIds(item: { kind: string; options: unknown }): string[] {
  const options = typeof item.options === 'object' && item.options !== null ? (item.options as Record<string, unknown>) : {};
  return appOptions(item.kind).flatMap(({ name, list }) => {
    const value = options[name];
    if (!list) return typeof value === 'string' ? [value] : [];
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  });
}

/**
 * Keeps the vouched placements (table app_placements) of items just written, inside the write's transaction:
 * a pair the item no longer places loses its vouch; a pair it places is vouched when the writer can use the app
 * (`decideAppAccess`), and an existing vouch stays whoever writes the item next. Only vouched placements on
 * public boards make an app readable by anyone (`isPlacedOnPublicBoard`), so options stay free-form while an
 * app id on a board never grants more than its writer could read. At most four statements whatever the count.
 */
export async function recordAppPlacements(trx: Knex.Transaction, principal: Principal, items: readonly WrittenItem[]): Promise<void> {
  if (items.length === 0) return;
  const pairs = items.flatMap((item) => [...new Set(placedAppIds(item))].map((appId) => ({ item_id: item.id, app_id: appId })));
  await trx.raw(
    `DELETE FROM ${AppPlacement.tableName} AS p
     WHERE p.item_id IN (SELECT jsonb_array_elements_text(?::jsonb))
       AND NOT EXISTS (SELECT 1 FROM jsonb_to_recordset(?::jsonb) AS v(item_id text, app_id text) WHERE v.item_id = p.item_id AND v.app_id = p.app_id)`,
    [JSON.stringify(items.map((item) => item.id)), JSON.stringify(pairs)],
  );
  if (pairs.length === 0) return;
  const access = await loadAppAccess(trx, principal, [...new Set(pairs.map((pair) => pair.app_id))]);
  const vouched = pairs.filter((pair) => access.get(pair.app_id)?.hasUseAccess);
  if (vouched.length === 0) return;
  // Joined with apps so that an app deleted since the access check is skipped rather than a foreign-key error.
  await trx.raw(
    `INSERT INTO ${AppPlacement.tableName} (item_id, app_id)
     SELECT v.item_id, v.app_id FROM jsonb_to_recordset(?::jsonb) AS v(item_id text, app_id text) JOIN ${App.tableName} a ON a.id = v.app_id
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(vouched)],
  );
}
