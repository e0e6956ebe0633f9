import type { HandlerMap, RequestContext } from '../core/operation';
import { requirePrincipal } from '../core/operation';
import { nextPageHeaders } from '../core/pages';
import { assertMayCreatePassword, assertMayManageKeysOf, boundsOfNewKey, deleteApiKey, insertApiKey, listApiKeys } from './apiKeys';
import { addMember, createGroup, deleteGroup, getGroup, listGroups, removeMember, setGroupPermissions } from './groups';
import { countLoginAttempt, loginSucceeded } from './loginThrottle';
import { assertPermission, loadPrincipal } from './principal';
import { sortedPermissions } from './permissions';
import { passwordMatches } from './secrets';
import { clearedSessionCookie, createSession, deleteSession, readCookie, sessionCookie, sessionCookieName } from './sessions';
import { createUser, deleteUser, listUsers, setPassword } from './users';
import { ApiError, badRequest, forbidden, unauthorized, notFound } from '../core/errors';
import { providerOfSession } from './oidc/store';
import { endSessionUrl } from './oidc/provider';
import { audited, recordAudit } from '../observability/audit';
import { User } from '../db/models';

/**
 * KEY-7: each board a key is limited to must be one its owner may view now (read through the board operation as the
 * owner, so identity needs no board code); any other id is unknown, as a missing board is (ACCESS-2).
 */
async function assertOwnerSeesBoards(ctx: RequestContext, userId: string, boardIds: readonly string[]): Promise<void> {
  const caller = requirePrincipal(ctx);
  const owner = userId === caller.userId ? caller : await loadPrincipal(ctx.db, userId, { authMethod: 'session', apiKeyId: null, scopes: null });
  const unknown: string[] = [];
  for (const id of new Set(boardIds)) {
    try {
      await ctx.invoke('getBoard', { params: { id }, as: owner ?? undefined });
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'NOT_FOUND')) throw error;
      unknown.push(id);
    }
  }
  if (unknown.length > 0) throw badRequest(`Unknown board ids: ${unknown.join(', ')}`, { boardIds: unknown });
}

export const identityHandlers = {
  async login({ body }, ctx) {
    const { db, config } = ctx;
    // OIDC-8: with AUTH_PROVIDERS=oidc only the provider signs people in (API keys keep working).
    if (!config.authProviders.credentials) {
      throw forbidden(`Password sign-in is turned off on this instance (AUTH_PROVIDERS=oidc); sign in with ${config.oidc?.clientName ?? 'the OpenID provider'}`);
    }
    // SEC-7: the first refused attempt per username and address (and per address) in a window is audited.
    await countLoginAttempt(db, body.username, ctx.clientIp, ({ policy, retryAfterSeconds }) =>
      recordAudit(db, ctx, {
        action: 'auth.login',
        outcome: 'failure',
        targetType: 'user',
        details: { username: body.username, throttled: policy, retryAfterSeconds },
      }),
    );
    const user: { id: string; passwordHash: string | null } | undefined = await User.query(db)
      .whereRaw('lower(username) = lower(?)', [body.username])
      .select('id', 'passwordHash')
      .first();
    if (!(await passwordMatches(body.password, user?.passwordHash ?? null)) || !user) {
      // AUDIT-1: a failed login, with the name tried and the client address (never the password).
      await recordAudit(db, ctx, { action: 'auth.login', outcome: 'failure', targetType: 'user', targetId: user?.id ?? null, details: { username: body.username } });
      throw unauthorized('Invalid username or password');
    }
    await loginSucceeded(db, body.username, ctx.clientIp);
    const session = await audited(
      { ...ctx, db, principal: { userId: user.id, username: body.username, apiKeyId: null } },
      { action: 'auth.login', targetType: 'user', targetId: user.id, details: { username: body.username } },
      (trx) => createSession(trx, user.id, config.sessionTtlSeconds),
    );
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
    const provider = token && ctx.config.oidc ? await providerOfSession(ctx.db, token) : null;
    if (token) await audited(ctx, { action: 'auth.logout', targetType: 'session' }, (trx) => deleteSession(trx, token));
    const cleared = { 'Set-Cookie': clearedSessionCookie(ctx.config.cookieSecure) };
    // OIDC-17: a session from the configured provider also ends there, where its discovery offers a logout endpoint.
    const endSession = provider && provider.issuer === ctx.config.oidc!.issuer ? await endSessionUrl(ctx.config.oidc!, provider.idToken) : null;
    if (endSession) return { status: 200, body: { endSessionUrl: endSession }, headers: cleared };
    return { status: 204, body: undefined, headers: cleared };
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
    const userId = await audited<string>(
      ctx,
      (id) => ({ action: 'user.create', targetType: 'user', targetId: id, details: { username: body.username, groupIds: body.groupIds ?? [] } }),
      (trx) => createUser(trx, body),
    );
    return { status: 201, body: { userId }, headers: { Location: `/api/users/${userId}` } };
  },

  async deleteUser({ params }, ctx) {
    const principal = requirePrincipal(ctx);
    assertPermission(principal, 'admin');
    await audited(ctx, { action: 'user.delete', targetType: 'user', targetId: params.userId }, (trx) => deleteUser(trx, params.userId, principal.userId));
    return { status: 204, body: undefined };
  },

  /** PASS-1: an admin sets a user's password on a running instance (the bootstrap admin's own, after the quick start). */
  async setUserPassword({ params, body }, ctx) {
    const principal = requirePrincipal(ctx);
    assertPermission(principal, 'admin');
    assertMayCreatePassword(principal);
    await audited(ctx, { action: 'user.password', targetType: 'user', targetId: params.userId }, (trx) => setPassword(trx, params.userId, body.password));
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
    const groupId = await audited<string>(
      ctx,
      (id) => ({ action: 'group.create', targetType: 'group', targetId: id, details: { name: body.name } }),
      (trx) => createGroup(trx, body.name, principal.userId),
    );
    return { status: 201, body: { groupId }, headers: { Location: `/api/groups/${groupId}` } };
  },

  async getGroup({ params }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    return { status: 200, body: await getGroup(ctx.db, params.groupId) };
  },

  async deleteGroup({ params }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    await audited(ctx, { action: 'group.delete', targetType: 'group', targetId: params.groupId }, (trx) => deleteGroup(trx, params.groupId));
    return { status: 204, body: undefined };
  },

  async addGroupMember({ params, body }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    await audited(ctx, { action: 'group.member.add', targetType: 'group', targetId: params.groupId, details: { userId: body.userId } }, (trx) =>
      addMember(trx, params.groupId, body.userId),
    );
    return { status: 204, body: undefined };
  },

  async removeGroupMember({ params }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    await audited(ctx, { action: 'group.member.remove', targetType: 'group', targetId: params.groupId, details: { userId: params.userId } }, (trx) =>
      removeMember(trx, params.groupId, params.userId),
    );
    return { status: 204, body: undefined };
  },

  async setGroupPermissions({ params, body }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    const permissions = await audited<Awaited<ReturnType<typeof setGroupPermissions>>>(
      ctx,
      (granted) => ({ action: 'group.permissions', targetType: 'group', targetId: params.groupId, details: { permissions: granted } }),
      (trx) => setGroupPermissions(trx, params.groupId, body.permissions),
    );
    return { status: 200, body: { permissions } };
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
    const bounds = boundsOfNewKey(principal, { scopes: body?.scopes, expiresAt: body?.expiresAt, boardIds: body?.boardIds, mcpMode: body?.mcpMode, agentApprove: body?.agentApprove });
    if (body?.boardIds) await assertOwnerSeesBoards(ctx, userId, body.boardIds);
    // AUDIT-1: the key's id, owner, scopes and expiry; never its token.
    const key = await audited<Awaited<ReturnType<typeof insertApiKey>>>(
      ctx,
      (created) => ({
        action: 'apikey.create',
        targetType: 'apikey',
        targetId: created.id,
        details: { userId: created.userId, name: created.name, scopes: created.scopes, expiresAt: created.expiresAt, boardIds: created.boardIds, mcpMode: created.mcpMode, agentApprove: created.agentApprove },
      }),
      (trx) => insertApiKey(trx, { userId, name: body?.name, ...bounds }),
    );
    return {
      status: 201,
      headers: { Location: `/api/api-keys/${key.id}` },
      body: {
        id: key.id,
        apiKey: key.apiKey,
        userId: key.userId,
        name: key.name,
        scopes: key.scopes,
        expiresAt: key.expiresAt,
        boardIds: key.boardIds,
        mcpMode: key.mcpMode,
        agentApprove: key.agentApprove,
      },
    };
  },

  async deleteApiKey({ params }, ctx) {
    const principal = requirePrincipal(ctx);
    await audited(ctx, { action: 'apikey.revoke', targetType: 'apikey', targetId: params.keyId }, (trx) => deleteApiKey(trx, principal, params.keyId));
    return { status: 204, body: undefined };
  },
} satisfies Partial<HandlerMap>;
