import type { Knex } from 'knex';
import type { Db } from '../db/database';
import { whereAmong } from '../db/idList';
import { decodeCursor, Page, pageOfRows, type PageRequest } from '../core/pages';
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors';
import { newId } from '../db/ids';
import { conflict, notFound } from '../core/errors';
import { GlobalPermission, sortedPermissions } from './permissions';
import { independentReads } from '../db/independentReads';
import { keepingAnAdmin } from './admins';
import { Group, GroupMember, GroupPermission } from '../db/models';
import type { AnyQueryBuilder } from 'objection';

export interface GroupView {
  id: string;
  name: string;
  memberIds: string[];
  permissions: GlobalPermission[];
  ownerId: string | null;
  homeBoardId: string | null;
  mobileHomeBoardId: string | null;
  position: number;
}

type GroupRow = Pick<GroupView, 'id' | 'name' | 'ownerId' | 'homeBoardId' | 'mobileHomeBoardId' | 'position'>;
const groupColumns = ['id', 'name', 'ownerId', 'homeBoardId', 'mobileHomeBoardId', 'position'];

export async function createGroup(db: Db, name: string, ownerId: string | null): Promise<string> {
  const id = newId();
  try {
    await Group.query(db).insert({ id, name, ownerId });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('Group name already taken');
    throw error;
  }
  return id;
}

/** Groups ordered by name, then id, with their members and permissions; a page of them when asked (HTTP-8). */
export async function listGroups(db: Db, page: PageRequest = {}): Promise<Page<GroupView>> {
  const query = Group.query(db).select(groupColumns).orderBy(['name', 'id']);
  if (page.cursor !== undefined) query.whereRaw('(name, id) > (?, ?)', decodeCursor(page.cursor, ['string', 'string']));
  if (page.limit !== undefined) query.limit(page.limit + 1);
  const { items: groups, nextCursor } = pageOfRows(await query.castTo<GroupRow[]>(), page.limit, (group) => [group.name, group.id]);
  const items = await withMembersAndPermissions(db, groups, nextCursor !== null || page.cursor !== undefined);
  return { items, nextCursor };
}

/** The groups' members and permissions; `onlyThese` reads those of the given groups only (else of every group). */
async function withMembersAndPermissions(db: Db, groups: GroupRow[], onlyThese: boolean): Promise<GroupView[]> {
  const ofGroups = <Q extends AnyQueryBuilder>(rows: Q): Q => (onlyThese ? rows.modify(whereAmong, 'groupId', groups.map((group) => group.id)) : rows);
  const [members, permissions] = await independentReads(db, [
    () => ofGroups(GroupMember.query(db).select('groupId', 'userId').orderBy('userId')).castTo<{ groupId: string; userId: string }[]>(),
    () => ofGroups(GroupPermission.query(db).select('groupId', 'permission')).castTo<{ groupId: string; permission: GlobalPermission }[]>(),
  ]);
  return groups.map((group) => ({
    id: group.id,
    name: group.name,
    memberIds: members.filter((m) => m.groupId === group.id).map((m) => m.userId),
    permissions: sortedPermissions(permissions.filter((p) => p.groupId === group.id).map((p) => p.permission)),
    ownerId: group.ownerId,
    homeBoardId: group.homeBoardId,
    mobileHomeBoardId: group.mobileHomeBoardId,
    position: group.position,
  }));
}

/** One group with its members and permissions; 404 `Group not found`. */
export async function getGroup(db: Db, groupId: string): Promise<GroupView> {
  const group = await Group.query(db).findById(groupId).select(groupColumns).castTo<GroupRow | undefined>();
  if (!group) throw notFound('Group not found');
  const [view] = await withMembersAndPermissions(db, [group], true);
  return view;
}

/** ADMIN-1: refused with 409 when it would leave no user with `admin`. */
export async function deleteGroup(db: Db, groupId: string): Promise<void> {
  await db.transaction((trx) =>
    keepingAnAdmin(trx, async () => {
      const deleted = await Group.query(trx).deleteById(groupId);
      if (deleted === 0) throw notFound('Group not found');
    }),
  );
}

async function assertGroupExists(db: Knex, groupId: string): Promise<void> {
  if (!(await Group.query(db).findById(groupId).select('id'))) throw notFound('Group not found');
}

/** Idempotent. */
export async function addMember(db: Db, groupId: string, userId: string): Promise<void> {
  await assertGroupExists(db, groupId);
  try {
    await GroupMember.query(db).insert({ groupId, userId }).onConflict(['groupId', 'userId']).ignore();
  } catch (error) {
    // The group was checked above, so a foreign-key failure means the user (or, in a race, the group) is gone.
    if (isForeignKeyViolation(error)) throw notFound('User not found');
    throw error;
  }
}

/** ADMIN-1: refused with 409 when it would leave no user with `admin`. */
export async function removeMember(db: Db, groupId: string, userId: string): Promise<void> {
  await db.transaction((trx) =>
    keepingAnAdmin(trx, async () => {
      await assertGroupExists(trx, groupId);
      const deleted = await GroupMember.query(trx).deleteById([groupId, userId]);
      if (deleted === 0) throw notFound('Membership not found');
    }),
  );
}

/** Replaces the group's permissions in one transaction; ADMIN-1: refused with 409 when it would leave no user with `admin`. */
export async function setGroupPermissions(db: Db, groupId: string, permissions: readonly GlobalPermission[]): Promise<GlobalPermission[]> {
  const unique = sortedPermissions(new Set(permissions));
  await db.transaction((trx) =>
    keepingAnAdmin(trx, async () => {
      const group = await Group.query(trx).findById(groupId).forUpdate().select('id');
      if (!group) throw notFound('Group not found');
      await GroupPermission.query(trx).where({ groupId }).delete();
      if (unique.length > 0) await GroupPermission.query(trx).insert(unique.map((permission) => ({ groupId, permission })));
    }),
  );
  return unique;
}

export async function findGroupIdByName(db: Db, name: string): Promise<string | null> {
  const row: { id: string } | undefined = await Group.query(db).whereRaw('lower(name) = lower(?)', [name]).select('id').first();
  return row?.id ?? null;
}
