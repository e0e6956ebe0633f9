import type { Db } from '../db/database';
import { isUniqueViolation } from '../db/errors';
import { newId } from '../db/ids';
import { badRequest, conflict, notFound } from '../core/errors';
import { hashPassword, passwordFitsBcrypt } from './secrets';
import { whereAmong } from '../db/idList';
import { decodeCursor, Page, pageOfRows, type PageRequest } from '../core/pages';
import { keepingAnAdmin } from './admins';
import { Group, GroupMember, User } from '../db/models';

export interface UserView {
  id: string;
  username: string;
  email: string | null;
  groupIds: string[];
  homeBoardId: string | null;
  mobileHomeBoardId: string | null;
  createdAt: string;
}

export interface NewUser {
  username: string;
  password?: string | null;
  email?: string | null;
  groupIds?: readonly string[];
}

/** Creates a user and its memberships in one transaction; 409 on a case-insensitive username collision. */
export async function createUser(db: Db, input: NewUser): Promise<string> {
  if (input.password != null && !passwordFitsBcrypt(input.password)) {
    throw badRequest('Password must be at most 72 bytes long');
  }
  const passwordHash = input.password != null ? await hashPassword(input.password) : null;
  const id = newId();
  return db.transaction(async (trx) => {
    const groupIds = [...new Set(input.groupIds ?? [])];
    if (groupIds.length > 0) {
      const found: { id: string }[] = await Group.query(trx).modify(whereAmong, 'id', groupIds).select('id');
      const missing = groupIds.filter((g) => !found.some((f) => f.id === g));
      if (missing.length > 0) throw badRequest(`Unknown group ids: ${missing.join(', ')}`, { groupIds: missing });
    }
    try {
      await User.query(trx).insert({ id, username: input.username, email: input.email ?? null, passwordHash });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('Username already taken');
      throw error;
    }
    if (groupIds.length > 0) await GroupMember.query(trx).insert(groupIds.map((groupId) => ({ groupId, userId: id })));
    return id;
  });
}

/** Users ordered by username, then id; a page of them when asked (HTTP-8). */
export async function listUsers(db: Db, page: PageRequest = {}): Promise<Page<UserView>> {
  const query = User.query(db).select('id', 'username', 'email', 'homeBoardId', 'mobileHomeBoardId', 'createdAt').orderBy(['username', 'id']);
  if (page.cursor !== undefined) query.whereRaw('(username, id) > (?, ?)', decodeCursor(page.cursor, ['string', 'string']));
  if (page.limit !== undefined) query.limit(page.limit + 1);
  const rows = await query.castTo<(Omit<UserView, 'groupIds' | 'createdAt'> & { createdAt: Date })[]>();
  const { items: users, nextCursor } = pageOfRows(rows, page.limit, (user) => [user.username, user.id]);
  const membershipQuery = GroupMember.query(db).select('userId', 'groupId').orderBy('groupId');
  if (nextCursor !== null || page.cursor !== undefined) membershipQuery.modify(whereAmong, 'userId', users.map((user) => user.id));
  const memberships = await membershipQuery.castTo<{ userId: string; groupId: string }[]>();
  const items = users.map((user) => ({
    id: user.id,
    username: user.username,
    email: user.email,
    groupIds: memberships.filter((m) => m.userId === user.id).map((m) => m.groupId),
    homeBoardId: user.homeBoardId,
    mobileHomeBoardId: user.mobileHomeBoardId,
    createdAt: user.createdAt.toISOString(),
  }));
  return { items, nextCursor };
}

export async function findUserIdByName(db: Db, username: string): Promise<string | null> {
  const row: { id: string } | undefined = await User.query(db).whereRaw('lower(username) = lower(?)', [username]).select('id').first();
  return row?.id ?? null;
}

/** ADMIN-1: refused with 409 when it would leave no user with `admin`. */
export async function deleteUser(db: Db, userId: string, callerId: string | null): Promise<void> {
  if (userId === callerId) throw badRequest('Cannot delete your own user');
  await db.transaction((trx) =>
    keepingAnAdmin(trx, async () => {
      const deleted = await User.query(trx).deleteById(userId);
      if (deleted === 0) throw notFound('User not found');
    }),
  );
}

export async function setPassword(db: Db, userId: string, password: string): Promise<void> {
  if (!passwordFitsBcrypt(password)) throw badRequest('Password must be at most 72 bytes long');
  const updated = await User.query(db).findById(userId).patch({ passwordHash: await hashPassword(password) });
  if (updated === 0) throw notFound('User not found');
}
