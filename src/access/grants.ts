/**
 * Per-resource grant rows (a user table and a group table with a permission level per row), the same for boards,
 * apps and integrations: read them all, or replace them all inside the caller's transaction.
 */
import type { Db } from '../db/database';
import { isForeignKeyViolation } from '../db/errors';
import { whereAmong } from '../db/idList';
import { badRequest } from '../core/errors';
import { byLevel } from './levels';
import { independentReads } from '../db/independentReads';
import { BaseModel, Group, User } from '../db/models';

export interface GrantTables<L extends string> {
  /** The models of the user rows and the group rows (src/db/models). */
  userModel: typeof BaseModel;
  groupModel: typeof BaseModel;
  /** camelCase name of the resource column (the knex mappers turn it into snake_case). */
  column: 'boardId' | 'appId' | 'integrationId';
  /** The resource's levels, lowest first. */
  levels: readonly L[];
}

export interface Grants<L extends string> {
  users: { userId: string; permission: L }[];
  groups: { groupId: string; permission: L }[];
}

const byId =
  <K extends 'userId' | 'groupId'>(key: K) =>
  (a: Record<K, string>, b: Record<K, string>) =>
    a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0;

/** Every grant row of one resource, by user (or group) id, then level. */
export async function readGrants<L extends string>(db: Db, tables: GrantTables<L>, id: string): Promise<Grants<L>> {
  const [users, groups] = await independentReads(db, [
    () => tables.userModel.query(db).where(tables.column, id).select('userId', 'permission').castTo<Grants<L>['users']>(),
    () => tables.groupModel.query(db).where(tables.column, id).select('groupId', 'permission').castTo<Grants<L>['groups']>(),
  ]);
  const level = byLevel(tables.levels);
  return {
    users: users.sort((a, b) => byId('userId')(a, b) || level(a, b)),
    groups: groups.sort((a, b) => byId('groupId')(a, b) || level(a, b)),
  };
}

/**
 * Replaces every user and group row of one resource; call inside a transaction that holds the resource. Repeated
 * entries collapse; unknown user or group ids are a 400 naming them (nothing written, the caller's transaction
 * rolls back).
 */
export async function replaceGrants<L extends string>(trx: Db, tables: GrantTables<L>, id: string, grants: Grants<L>): Promise<void> {
  const users = [...new Map(grants.users.map((u) => [`${u.userId}\n${u.permission}`, u])).values()];
  const groups = [...new Map(grants.groups.map((g) => [`${g.groupId}\n${g.permission}`, g])).values()];
  const userIds = [...new Set(users.map((u) => u.userId))];
  const groupIds = [...new Set(groups.map((g) => g.groupId))];
  const known = async (model: typeof BaseModel, ids: string[]) =>
    new Set(ids.length === 0 ? [] : ((await model.query(trx).modify(whereAmong, 'id', ids).select('id')) as unknown as { id: string }[]).map((row) => row.id));
  const [knownUsers, knownGroups] = [await known(User, userIds), await known(Group, groupIds)];
  const missingUsers = userIds.filter((userId) => !knownUsers.has(userId));
  const missingGroups = groupIds.filter((groupId) => !knownGroups.has(groupId));
  if (missingUsers.length > 0) throw badRequest(`Unknown user ids: ${missingUsers.join(', ')}`, { userIds: missingUsers });
  if (missingGroups.length > 0) throw badRequest(`Unknown group ids: ${missingGroups.join(', ')}`, { groupIds: missingGroups });

  await tables.userModel.query(trx).where(tables.column, id).delete();
  await tables.groupModel.query(trx).where(tables.column, id).delete();
  try {
    if (users.length > 0) await tables.userModel.query(trx).insert(users.map((u) => ({ [tables.column]: id, userId: u.userId, permission: u.permission })));
    if (groups.length > 0) await tables.groupModel.query(trx).insert(groups.map((g) => ({ [tables.column]: id, groupId: g.groupId, permission: g.permission })));
  } catch (error) {
    // A user or group deleted since the check above.
    if (isForeignKeyViolation(error)) throw badRequest('A user or group of the request no longer exists');
    throw error;
  }
}
