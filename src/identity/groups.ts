import type { Db } from '../db/database';
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors';
import { newId } from '../db/ids';
import { conflict, notFound } from '../core/errors';
import { GlobalPermission, sortedPermissions } from './permissions';

export interface GroupView {
  id: string;
  name: string;
  memberIds: string[];
  permissions: GlobalPermission[];
}

export async function createGroup(db: Db, name: string, ownerId: string | null): Promise<string> {
  const id = newId();
  try {
    await db('groups').insert({ id, name, ownerId });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('Group name already taken');
    throw error;
  }
  return id;
}

export async function listGroups(db: Db): Promise<GroupView[]> {
  const [groups, members, permissions] = await Promise.all([
    db('groups').select('id', 'name').orderBy('name') as Promise<{ id: string; name: string }[]>,
    db('group_members').select('groupId', 'userId').orderBy('userId') as Promise<{ groupId: string; userId: string }[]>,
    db('group_permissions').select('groupId', 'permission') as Promise<{ groupId: string; permission: GlobalPermission }[]>,
  ]);
  return groups.map((group) => ({
    id: group.id,
    name: group.name,
    memberIds: members.filter((m) => m.groupId === group.id).map((m) => m.userId),
    permissions: sortedPermissions(permissions.filter((p) => p.groupId === group.id).map((p) => p.permission)),
  }));
}

export async function deleteGroup(db: Db, groupId: string): Promise<void> {
  const deleted = await db('groups').where({ id: groupId }).del();
  if (deleted === 0) throw notFound('Group not found');
}

async function assertGroupExists(db: Db, groupId: string): Promise<void> {
  if (!(await db('groups').where({ id: groupId }).first('id'))) throw notFound('Group not found');
}

/** Idempotent. */
export async function addMember(db: Db, groupId: string, userId: string): Promise<void> {
  await assertGroupExists(db, groupId);
  try {
    await db('group_members').insert({ groupId, userId }).onConflict(['groupId', 'userId']).ignore();
  } catch (error) {
    // The group was checked above, so a foreign-key failure means the user (or, in a race, the group) is gone.
    if (isForeignKeyViolation(error)) throw notFound('User not found');
    throw error;
  }
}

export async function removeMember(db: Db, groupId: string, userId: string): Promise<void> {
  await assertGroupExists(db, groupId);
  const deleted = await db('group_members').where({ groupId, userId }).del();
  if (deleted === 0) throw notFound('Membership not found');
}

/** Replaces the group's permissions in one transaction. */
export async function setGroupPermissions(db: Db, groupId: string, permissions: readonly GlobalPermission[]): Promise<GlobalPermission[]> {
  const unique = sortedPermissions(new Set(permissions));
  await db.transaction(async (trx) => {
    const group = await trx('groups').where({ id: groupId }).forUpdate().first('id');
    if (!group) throw notFound('Group not found');
    await trx('group_permissions').where({ groupId }).del();
    if (unique.length > 0) await trx('group_permissions').insert(unique.map((permission) => ({ groupId, permission })));
  });
  return unique;
}

export async function findGroupIdByName(db: Db, name: string): Promise<string | null> {
  const row: { id: string } | undefined = await db('groups').whereRaw('lower(name) = lower(?)', [name]).first('id');
  return row?.id ?? null;
}
