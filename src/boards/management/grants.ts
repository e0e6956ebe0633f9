import type { Db } from '../../db/database';
import { isForeignKeyViolation } from '../../db/errors';
import { badRequest } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { assertBoardAccess, type BoardPermissionLevel } from '../access';
import { touchBoard } from './boards';
import { whereAmong } from '../../db/idList';

export interface BoardGrants {
  users: { userId: string; permission: BoardPermissionLevel }[];
  groups: { groupId: string; permission: BoardPermissionLevel }[];
}

const levelOrder: Record<BoardPermissionLevel, number> = { view: 0, modify: 1, full: 2 };

async function readGrants(db: Db, boardId: string): Promise<BoardGrants> {
  const [users, groups] = await Promise.all([
    db('board_user_permissions').where({ boardId }).select('userId', 'permission') as Promise<BoardGrants['users']>,
    db('board_group_permissions').where({ boardId }).select('groupId', 'permission') as Promise<BoardGrants['groups']>,
  ]);
  const byLevel = (a: { permission: BoardPermissionLevel }, b: { permission: BoardPermissionLevel }) => levelOrder[a.permission] - levelOrder[b.permission];
  return {
    users: users.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : byLevel(a, b))),
    groups: groups.sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : byLevel(a, b))),
  };
}

/** GET /api/boards/{id}/permissions: full access; every user and group row of the board. */
export async function getBoardGrants(db: Db, principal: Principal, boardId: string): Promise<BoardGrants> {
  await assertBoardAccess(db, boardId, principal, 'full');
  return readGrants(db, boardId);
}

function unique<T extends Record<string, string>>(entries: T[], key: keyof T): T[] {
  const seen = new Map<string, T>();
  for (const entry of entries) seen.set(`${entry[key]}\u0000${entry.permission}`, entry);
  return [...seen.values()];
}

/**
 * PUT /api/boards/{id}/permissions: full access; replaces every user and group row of the board in one
 * transaction. Repeated entries collapse; unknown user or group ids are a 400 naming them.
 */
export async function setBoardGrants(db: Db, principal: Principal, boardId: string, input: BoardGrants): Promise<BoardGrants> {
  const users = unique(input.users, 'userId');
  const groups = unique(input.groups, 'groupId');
  return db.transaction(async (trx) => {
    await assertBoardAccess(trx, boardId, principal, 'full');
    // Locks the board row (and bumps the revision) before anything else is written.
    await touchBoard(trx, boardId, {});
    const userIds = [...new Set(users.map((u) => u.userId))];
    const groupIds = [...new Set(groups.map((g) => g.groupId))];
    const [knownUsers, knownGroups] = await Promise.all([
      trx('users').modify(whereAmong, 'id', userIds).select('id') as Promise<{ id: string }[]>,
      trx('groups').modify(whereAmong, 'id', groupIds).select('id') as Promise<{ id: string }[]>,
    ]);
    const unknownUsers = userIds.filter((id) => !knownUsers.some((u) => u.id === id));
    if (unknownUsers.length > 0) throw badRequest(`Unknown user IDs: ${unknownUsers.join(', ')}`, { userIds: unknownUsers });
    const unknownGroups = groupIds.filter((id) => !knownGroups.some((g) => g.id === id));
    if (unknownGroups.length > 0) throw badRequest(`Unknown group IDs: ${unknownGroups.join(', ')}`, { groupIds: unknownGroups });

    await trx('board_user_permissions').where({ boardId }).del();
    await trx('board_group_permissions').where({ boardId }).del();
    try {
      if (users.length > 0) await trx('board_user_permissions').insert(users.map((u) => ({ boardId, userId: u.userId, permission: u.permission })));
      if (groups.length > 0) await trx('board_group_permissions').insert(groups.map((g) => ({ boardId, groupId: g.groupId, permission: g.permission })));
    } catch (error) {
      // A user or group deleted between the check and the insert.
      if (isForeignKeyViolation(error)) throw badRequest('A user or group of the request no longer exists');
      throw error;
    }
    return readGrants(trx, boardId);
  });
}
