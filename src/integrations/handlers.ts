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
  updateIntegration,
} from './integrations';
import type { SecretCipher } from './secrets/cipher';
import type { SecretChange } from './secrets/kinds';

/** Integration routes (spec "Integration listing", "Binding integrations to items"); secrets under SECRET-*. */
export const integrationHandlers = (deps: { secrets: SecretCipher }) => ({
  async listIntegrations({ query }, ctx) {
    const page = await listVisibleIntegrations(ctx.db, requirePrincipal(ctx), query);
    return { status: 200, body: page.items, headers: nextPageHeaders('/api/integrations', query, page.nextCursor) };
  },

  async createIntegration({ body }, ctx) {
    const principal = requirePrincipal(ctx);
    assertPermission(principal, 'integration-create');
    const integrationId = await createIntegration(ctx.db, principal, normalizeIntegrationInput(body), {
      cipher: deps.secrets,
      changes: (body.secrets ?? []) as SecretChange[],
    });
    return { status: 201, body: { integrationId }, headers: { Location: `/api/integrations/${integrationId}` } };
  },

  async getIntegration({ params }, ctx) {
    return { status: 200, body: await readIntegration(ctx.db, requirePrincipal(ctx), params.id) };
  },

  async updateIntegration({ params, body }, ctx) {
    const principal = requirePrincipal(ctx);
    const changes = (body.secrets ?? []) as SecretChange[];
    // SECRET-5: the entry names the fields and secret kinds changed, never a value.
    const event = {
      action: 'integration.update',
      targetType: 'integration',
      targetId: params.id,
      details: {
        fields: ['name', 'url'].filter((field) => field in body),
        secretsSet: changes.filter((c) => c.value !== null).map((c) => c.kind),
        secretsRemoved: changes.filter((c) => c.value === null).map((c) => c.kind),
      },
    } as const;
    await audited(ctx, event, (trx) => updateIntegration(trx, principal, params.id, { name: body.name, url: body.url, secrets: changes }, deps.secrets));
    return { status: 200, body: await readIntegration(ctx.db, principal, params.id) };
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
}) satisfies Partial<HandlerMap>;
