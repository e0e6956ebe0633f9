import { readGrants, replaceGrants } from '../access/grants';
import type { HandlerMap } from '../core/operation';
import { requirePrincipal } from '../core/operation';
import { nextPageHeaders } from '../core/pages';
import { assertPermission } from '../identity/principal';
import { audited } from '../observability/audit';
import { integrationGrantTables } from './access';
import { historyContext } from '../boards/history/record';
import {
  assertIntegrationFullAccess,
  createIntegration,
  deleteIntegration,
  listVisibleIntegrations,
  normalizeIntegrationInput,
  readIntegration,
} from './integrations';

/** Integration routes (spec "Integration listing", "Binding integrations to items"). */
export const integrationHandlers = {
  async listIntegrations({ query }, ctx) {
    const page = await listVisibleIntegrations(ctx.db, requirePrincipal(ctx), query);
    return { status: 200, body: page.items, headers: nextPageHeaders('/api/integrations', query, page.nextCursor) };
  },

  async createIntegration({ body }, ctx) {
    const principal = requirePrincipal(ctx);
    assertPermission(principal, 'integration-create');
    const integrationId = await createIntegration(ctx.db, principal, normalizeIntegrationInput(body));
    return { status: 201, body: { integrationId }, headers: { Location: `/api/integrations/${integrationId}` } };
  },

  async getIntegration({ params }, ctx) {
    return { status: 200, body: await readIntegration(ctx.db, requirePrincipal(ctx), params.id) };
  },

  async deleteIntegration({ params }, ctx) {
    await deleteIntegration(ctx.db, requirePrincipal(ctx), params.id, historyContext(ctx, 'deleteIntegration'));
    return { status: 204, body: undefined };
  },

  async getIntegrationPermissions({ params }, ctx) {
    await assertIntegrationFullAccess(ctx.db, requirePrincipal(ctx), params.id);
    return { status: 200, body: await readGrants(ctx.db, integrationGrantTables, params.id) };
  },

  async setIntegrationPermissions({ params, body }, ctx) {
    const principal = requirePrincipal(ctx);
    const event = { action: 'integration.permissions', targetType: 'integration', targetId: params.id, details: { users: body.users, groups: body.groups } } as const;
    const grants = await audited(ctx, event, async (trx) => {
      await assertIntegrationFullAccess(trx, principal, params.id);
      await replaceGrants(trx, integrationGrantTables, params.id, body);
      return readGrants(trx, integrationGrantTables, params.id);
    });
    return { status: 200, body: grants };
  },
} satisfies Partial<HandlerMap>;
