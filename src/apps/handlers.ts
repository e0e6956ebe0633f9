import type { HandlerMap } from '../core/operation';
import { requirePrincipal } from '../core/operation';
import { assertPermission } from '../identity/principal';
import { audited } from '../observability/audit';
import { appGrantTables, assertAppAccess } from './access';
import { createOrReferenceApp, deleteApp, listVisibleApps, pageVisibleApps, readApp, searchVisibleApps, updateApp } from './apps';
import { readGrants, replaceGrants } from '../access/grants';
import { boardAppStatuses, listBoardApps } from './boardApps';
import { fieldsNotApplied, normalizeAppInput, normalizeNewApp } from './validation';

/** App routes (spec "App routes"). */
export const appHandlers = {
  async listApps(_input, ctx) {
    return { status: 200, body: await listVisibleApps(ctx.db, requirePrincipal(ctx)) };
  },

  async listSelectableApps(_input, ctx) {
    const apps = await listVisibleApps(ctx.db, requirePrincipal(ctx));
    return {
      status: 200,
      body: apps.map(({ id, name, iconUrl, href, pingUrl, description }) => ({ id, name, iconUrl, href, pingUrl, description })),
    };
  },

  async searchApps({ query }, ctx) {
    return { status: 200, body: await searchVisibleApps(ctx.db, requirePrincipal(ctx), query.query, query.limit ?? 10) };
  },

  async listAppsPaginated({ query }, ctx) {
    const page = await pageVisibleApps(ctx.db, requirePrincipal(ctx), {
      search: (query.search ?? '').trim(),
      page: query.page ?? 1,
      pageSize: query.pageSize ?? 10,
    });
    return { status: 200, body: page };
  },

  async getApp({ params }, ctx) {
    return { status: 200, body: await readApp(ctx.db, ctx.principal, params.id) };
  },

  async createApp({ body }, ctx) {
    const principal = requirePrincipal(ctx);
    assertPermission(principal, 'app-create');
    const requested = normalizeNewApp(body);
    const outcome = await createOrReferenceApp(ctx.db, principal, requested);
    if (outcome.referencedExisting) {
      const ignoredFields = fieldsNotApplied(body, requested, outcome.existing);
      return { status: 200, body: { appId: outcome.appId, id: outcome.appId, referencedExisting: true, ignoredFields } };
    }
    return { status: 201, body: { appId: outcome.app.id, referencedExisting: false, ...outcome.app }, headers: { Location: `/api/apps/${outcome.app.id}` } };
  },

  async updateApp({ params, body }, ctx) {
    const fields = normalizeAppInput(body);
    return { status: 200, body: await updateApp(ctx.db, requirePrincipal(ctx), params.id, fields) };
  },

  async deleteApp({ params }, ctx) {
    await deleteApp(ctx.db, requirePrincipal(ctx), params.id);
    return { status: 204, body: undefined };
  },

  async listBoardApps({ params }, ctx) {
    return { status: 200, body: { apps: await listBoardApps(ctx.db, ctx.principal, params.id) } };
  },

  async getBoardAppStatus({ params }, ctx) {
    return { status: 200, body: { statuses: await boardAppStatuses(ctx.db, ctx.principal, params.id, ctx.config.ping) } };
  },

  async getAppPermissions({ params }, ctx) {
    await assertAppAccess(ctx.db, params.id, requirePrincipal(ctx), 'full');
    return { status: 200, body: await readGrants(ctx.db, appGrantTables, params.id) };
  },

  async setAppPermissions({ params, body }, ctx) {
    const principal = requirePrincipal(ctx);
    const event = { action: 'app.permissions', targetType: 'app', targetId: params.id, details: { users: body.users, groups: body.groups } } as const;
    const grants = await audited(ctx, event, async (trx) => {
      await assertAppAccess(trx, params.id, principal, 'full');
      await replaceGrants(trx, appGrantTables, params.id, body);
      return readGrants(trx, appGrantTables, params.id);
    });
    return { status: 200, body: grants };
  },
} satisfies Partial<HandlerMap>;
