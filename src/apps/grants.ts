import type { Db } from '../db/database';
import { isForeignKeyViolation } from '../db/errors';
import { badRequest } from '../core/errors';
import { whereAmong } from '../db/idList';

/**
 * Per-resource grant rows (user and group tables with a permission level), shared by apps and integrations:
 * read them all, or replace them all in one transaction.
 */
export interface GrantTables {
  userTable: 'app_user_permissions' | 'integration_user_permissions';
  groupTable: 'app_group_permissions' | 'integration_group_permissions';
  /** camelCase name of the resource column (the knex mappers turn it into snake_case). */
  column: 'appId' | 'integrationId';
}

export const appGrantTables: GrantTables = { userTable: 'app_user_permissions', groupTable: 'app_group_permissions', column: 'appId' };
export const integrationGrantTables: GrantTables = {
  userTable: 'integration_user_permissions',
  groupTable: 'integration_group_permissions',
  column: 'integrationId',
};

export interface Grants<L extends string> {
  users: { userId: string; permission: L }[];
  groups: { groupId: string; permission: L }[];
}

export async function readGrants<L extends string>(db: Db, tables: GrantTables, id: string): Promise<Grants<L>> {
  const [users, groups] = await Promise.all([
    db(tables.userTable).where(tables.column, id).select('userId', 'permission').orderBy([{ column: 'userId' }, { column: 'permission' }]),
    db(tables.groupTable).where(tables.column, id).select('groupId', 'permission').orderBy([{ column: 'groupId' }, { column: 'permission' }]),
  ]);
  return { users, groups } as Grants<L>;
}

/**
 * Replaces every user and group row of one resource; call inside a transaction. Unknown user or group ids are
 * a 400 naming them (nothing written, the caller's transaction rolls back).
 */
export async function replaceGrants<L extends string>(trx: Db, tables: GrantTables, id: string, grants: Grants<L>): Promise<void> {
  const userIds = [...new Set(grants.users.map((u) => u.userId))];
  const groupIds = [...new Set(grants.groups.map((g) => g.groupId))];
  const [knownUsers, knownGroups] = [
    userIds.length > 0 ? ((await trx('users').modify(whereAmong, 'id', userIds).select('id')) as { id: string }[]) : [],
    groupIds.length > 0 ? ((await trx('groups').modify(whereAmong, 'id', groupIds).select('id')) as { id: string }[]) : [],
  ];
  const missingUsers = userIds.filter((u) => !knownUsers.some((k) => k.id === u));
  const missingGroups = groupIds.filter((g) => !knownGroups.some((k) => k.id === g));
  if (missingUsers.length > 0) throw badRequest(`Unknown user ids: ${missingUsers.join(', ')}`, { userIds: missingUsers });
  if (missingGroups.length > 0) throw badRequest(`Unknown group ids: ${missingGroups.join(', ')}`, { groupIds: missingGroups });

  try {
    await writeGrants(trx, tables, id, grants);
  } catch (error) {
    // A user or group deleted since the check above.
    if (isForeignKeyViolation(error)) throw badRequest('Unknown user or group ids', {});
    throw error;
  }
}

async function writeGrants<L extends string>(trx: Db, tables: GrantTables, id: string, grants: Grants<L>): Promise<void> {
  await trx(tables.userTable).where(tables.column, id).del();
  await trx(tables.groupTable).where(tables.column, id).del();
  if (grants.users.length > 0) {
    await trx(tables.userTable)
      .insert(grants.users.map((u) => ({ [tables.column]: id, userId: u.userId, permission: u.permission })))
      .onConflict()
      .ignore();
  }
  if (grants.groups.length > 0) {
    await trx(tables.groupTable)
      .insert(grants.groups.map((g) => ({ [tables.column]: id, groupId: g.groupId, permission: g.permission })))
      .onConflict()
      .ignore();
  }
}
