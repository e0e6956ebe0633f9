import type { Db } from '../db/database';
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors';
import { newId } from '../db/ids';
import { conflict, notFound } from '../core/errors';
import type { Principal } from '../identity/principal';
import { AppAccessFlags, assertAppAccess, decideAppAccess, isPlacedOnPublicBoard, loadAppAccess, loadOwnLevels, whereVisibleApp } from './access';
import type { AppFields } from './validation';
import { independentReads } from '../db/independentReads';
import { App as AppModel, AppUserPermission } from '../db/models';

export interface App extends AppFields {
  id: string;
}

const appColumns = ['id', 'name', 'description', 'iconUrl', 'href', 'pingUrl'].map((property) => AppModel.col(property));
const byName = [{ column: AppModel.col('name') }, { column: AppModel.col('id') }];
const byNameMatch = `strpos(lower(${AppModel.tableName}.name), lower(?)) > 0`;

/** Name of the unique index on the dedupe key (migration 0002_apps). */
const dedupeIndex = 'apps_name_href_unique';

/** Every app the caller has use access to, ordered by name then id. */
export async function listVisibleApps(db: Db, principal: Principal): Promise<App[]> {
  return whereVisibleApp(AppModel.query(db).select(appColumns), db, principal).orderBy(byName).castTo<App[]>();
}

/** Visible apps whose name contains `query` (case-insensitive), ordered by name, at most `limit`. */
export async function searchVisibleApps(db: Db, principal: Principal, query: string, limit: number): Promise<App[]> {
  return whereVisibleApp(AppModel.query(db).select(appColumns), db, principal)
    .whereRaw(byNameMatch, [query.trim()])
    .orderBy(byName)
    .limit(limit)
    .castTo<App[]>();
}

/** One page of visible apps matching `search`, with the caller's flags on each, and the total count. Three queries. */
export async function pageVisibleApps(
  db: Db,
  principal: Principal,
  options: { search: string; page: number; pageSize: number },
): Promise<{ items: (App & { permissions: AppAccessFlags })[]; totalCount: number }> {
  const matching = () => {
    const query = whereVisibleApp(AppModel.query(db), db, principal);
    if (options.search !== '') query.whereRaw(byNameMatch, [options.search]);
    return query;
  };
  const [countRow, items] = await independentReads(db, [
    () => matching().count({ count: '*' }).first().castTo<{ count: number | string }>(),
    () => matching()
      .select(appColumns)
      .orderBy(byName)
      .offset((options.page - 1) * options.pageSize)
      .limit(options.pageSize)
      .castTo<App[]>(),
  ]);
  const levels = await loadOwnLevels(
    db,
    principal,
    items.map((app) => app.id),
  );
  return {
    items: items.map((app) => ({ ...app, permissions: decideAppAccess(principal, levels.get(app.id) ?? []) })),
    totalCount: Number(countRow.count),
  };
}

/**
 * One app, when the caller may read it: use access, or (for anyone, including anonymous callers) an app or
 * bookmarks widget on a public board places it and was written by someone who could use it. 404 `App not found`
 * otherwise.
 */
export async function readApp(db: Db, principal: Principal | null, id: string): Promise<App> {
  const app: App | undefined = await AppModel.query(db).findById(id).select(appColumns);
  if (!app) throw notFound('App not found');
  if (principal && (await loadAppAccess(db, principal, [id])).get(id)?.hasUseAccess) return app;
  if (await isPlacedOnPublicBoard(db, id)) return app;
  throw notFound('App not found');
}

/** A created app, or the existing app the request matched (APP-1) as it is stored. */
export type CreateOutcome = { referencedExisting: false; app: App } | { referencedExisting: true; appId: string; existing: App };

/**
 * APP-1: dedupe on (name, href) across the instance. Decided by the unique index: the insert
 * does nothing on a conflict, and the existing app is then referenced (the caller gets a `use` row unless it
 * already holds a user row on it). A new app gets the caller as `full` holder. One transaction per attempt; an
 * attempt is repeated when the referenced app was deleted in between.
 */
export async function createOrReferenceApp(db: Db, principal: Principal, fields: AppFields): Promise<CreateOutcome> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const outcome = await db.transaction(async (trx): Promise<CreateOutcome | null> => {
        const id = newId();
        // The insert's RETURNING rows say whether it inserted: objection's insert answers the given row either way.
        const inserted: App[] = await AppModel.table(trx)
          .insert({ id, ...fields })
          .onConflict()
          .ignore()
          .returning(['id', 'name', 'description', 'iconUrl', 'href', 'pingUrl']);
        if (inserted.length > 0) {
          await AppUserPermission.query(trx).insert({ appId: id, userId: principal.userId, permission: 'full' });
          return { referencedExisting: false, app: inserted[0] };
        }
        const existing: App | undefined = await AppModel.query(trx)
          .where('name', fields.name)
          .modify((q) => (fields.href === null ? q.whereNull('href') : q.where('href', fields.href)))
          .select(appColumns)
          .first();
        if (!existing) return null; // deleted since the insert saw it: try again
        await trx.raw(
          `INSERT INTO ${AppUserPermission.tableName} (app_id, user_id, permission)
           SELECT ?, ?, 'use' WHERE NOT EXISTS (SELECT 1 FROM ${AppUserPermission.tableName} WHERE app_id = ? AND user_id = ?)
           ON CONFLICT DO NOTHING`,
          [existing.id, principal.userId, existing.id, principal.userId],
        );
        return { referencedExisting: true, appId: existing.id, existing };
      });
      if (outcome) return outcome;
    } catch (error) {
      // The referenced app (or the caller) vanished between the statements: decide again.
      if (!isForeignKeyViolation(error) && !isUniqueViolation(error)) throw error;
    }
  }
  throw new Error('createOrReferenceApp: no decision after 5 attempts');
}

/** PATCH: modify access; 409 when the new (name, href) is another app's. */
export async function updateApp(db: Db, principal: Principal, id: string, fields: Partial<AppFields>): Promise<App> {
  try {
    return await db.transaction(async (trx) => {
      await assertAppAccess(trx, id, principal, 'modify');
      const [app] = await AppModel.query(trx).patch(fields).where('id', id).returning(appColumns).castTo<App[]>();
      if (!app) throw notFound('App not found');
      return app;
    });
  } catch (error) {
    if (isUniqueViolation(error, dedupeIndex)) throw conflict('An app with the same name and href already exists', {});
    throw error;
  }
}

/** DELETE: full access. Grants go by cascade; integrations pointing at the app keep existing (app_id set null). */
export async function deleteApp(db: Db, principal: Principal, id: string): Promise<void> {
  await db.transaction(async (trx) => {
    await assertAppAccess(trx, id, principal, 'full');
    await AppModel.query(trx).deleteById(id);
  });
}
