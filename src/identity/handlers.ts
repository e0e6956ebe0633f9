import type { HandlerMap } from '../core/operation';
import { requirePrincipal } from '../core/operation';
import { nextPageHeaders } from '../core/pages';
import { assertMayCreatePassword, assertMayManageKeysOf, boundsOfNewKey, deleteApiKey, insertApiKey, listApiKeys } from './apiKeys';
import { addMember, createGroup, deleteGroup, getGroup, listGroups, removeMember, setGroupPermissions } from './groups';
import { countLoginAttempt, loginSucceeded } from './loginThrottle';
import { assertPermission, loadPrincipal } from './principal';
import { sortedPermissions } from './permissions';
import { passwordMatches } from './secrets';
import { clearedSessionCookie, createSession, deleteSession, readCookie, sessionCookie, sessionCookieName } from './sessions';
import { createUser, deleteUser, listUsers } from './users';
import { unauthorized, notFound } from '../core/errors';
import { User } from '../db/models';

export const identityHandlers = {
  async login({ body }, ctx) {
    const { db, config } = ctx;
    await countLoginAttempt(db, body.username, ctx.clientIp);
    const user: { id: string; passwordHash: string | null } | undefined = await User.query(db)
      .whereRaw('lower(username) = lower(?)', [body.username])
      .select('id', 'passwordHash')
      .first();
    if (!(await passwordMatches(body.password, user?.passwordHash ?? null)) || !user) {
      throw unauthorized('Invalid username or password');
    }
    await loginSucceeded(db, body.username, ctx.clientIp);
    const session = await createSession(db, user.id, config.sessionTtlSeconds);
    const principal = await loadPrincipal(db, user.id, { authMethod: 'session', apiKeyId: null, scopes: null });
    if (!principal) throw unauthorized('Invalid username or password');
    ctx.logger.info({ userId: user.id }, 'login');
    return {
      status: 200,
      headers: { 'Set-Cookie': sessionCookie(session.token, config.sessionTtlSeconds, config.cookieSecure) },
      body: {
        userId: principal.userId,
        username: principal.username,
        authMethod: 'session',
        permissions: sortedPermissions(principal.permissions),
      },
    };
  },

  async logout(_input, ctx) {
    const token = readCookie(ctx.headers.cookie, sessionCookieName);
    if (token) await deleteSession(ctx.db, token);
    return { status: 204, body: undefined, headers: { 'Set-Cookie': clearedSessionCookie(ctx.config.cookieSecure) } };
  },

  async getSession(_input, ctx) {
    const principal = requirePrincipal(ctx);
    return {
      status: 200,
      body: {
        userId: principal.userId,
        username: principal.username,
        authMethod: principal.authMethod,
        permissions: sortedPermissions(principal.permissions),
      },
    };
  },

  async listUsers({ query }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    const page = await listUsers(ctx.db, query);
    return { status: 200, body: page.items, headers: nextPageHeaders('/api/users', query, page.nextCursor) };
  },

  async createUser({ body }, ctx) {
    const principal = requirePrincipal(ctx);
    assertPermission(principal, 'admin');
    assertMayCreatePassword(principal);
    const userId = await createUser(ctx.db, body);
    return { status: 201, body: { userId }, headers: { Location: `/api/users/${userId}` } };
  },

  async deleteUser({ params }, ctx) {
    const principal = requirePrincipal(ctx);
    assertPermission(principal, 'admin');
    await deleteUser(ctx.db, params.userId, principal.userId);
    return { status: 204, body: undefined };
  },

  async listGroups({ query }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    const page = await listGroups(ctx.db, query);
    return { status: 200, body: page.items, headers: nextPageHeaders('/api/groups', query, page.nextCursor) };
  },

  async createGroup({ body }, ctx) {
    const principal = requirePrincipal(ctx);
    assertPermission(principal, 'admin');
    const groupId = await createGroup(ctx.db, body.name, principal.userId);
    return { status: 201, body: { groupId }, headers: { Location: `/api/groups/${groupId}` } };
  },

  async getGroup({ params }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    return { status: 200, body: await getGroup(ctx.db, params.groupId) };
  },

  async deleteGroup({ params }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    await deleteGroup(ctx.db, params.groupId);
    return { status: 204, body: undefined };
  },

  async addGroupMember({ params, body }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    await addMember(ctx.db, params.groupId, body.userId);
    return { status: 204, body: undefined };
  },

  async removeGroupMember({ params }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    await removeMember(ctx.db, params.groupId, params.userId);
    return { status: 204, body: undefined };
  },

  async setGroupPermissions({ params, body }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    return { status: 200, body: { permissions: await setGroupPermissions(ctx.db, params.groupId, body.permissions) } };
  },

  async listApiKeys({ query }, ctx) {
    const principal = requirePrincipal(ctx);
    const userId = query.userId ?? principal.userId;
    assertMayManageKeysOf(principal, userId);
    const page = await listApiKeys(ctx.db, principal, userId, query);
    return { status: 200, body: page.items, headers: nextPageHeaders('/api/api-keys', query, page.nextCursor) };
  },

  async createApiKey({ body }, ctx) {
    const principal = requirePrincipal(ctx);
    const userId = body?.userId ?? principal.userId;
    assertMayManageKeysOf(principal, userId);
    if (userId !== principal.userId && !(await User.query(ctx.db).findById(userId).select('id'))) {
      throw notFound('User not found');
    }
    const bounds = boundsOfNewKey(principal, { scopes: body?.scopes, expiresAt: body?.expiresAt });
    const key = await insertApiKey(ctx.db, { userId, name: body?.name, ...bounds });
    return {
      status: 201,
      headers: { Location: `/api/api-keys/${key.id}` },
      body: { id: key.id, apiKey: key.apiKey, userId: key.userId, name: key.name, scopes: key.scopes, expiresAt: key.expiresAt },
    };
  },

  async deleteApiKey({ params }, ctx) {
    await deleteApiKey(ctx.db, requirePrincipal(ctx), params.keyId);
    return { status: 204, body: undefined };
  },
} satisfies Partial<HandlerMap>;
