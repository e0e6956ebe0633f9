import type { HandlerMap } from '../core/operation';
import { requirePrincipal } from '../core/operation';
import { assertPermission } from '../identity/principal';
import { audited } from '../observability/audit';
import type { CustomApiDefinition, CustomApiInput } from './definition';
import { createCustomApi, deleteCustomApi, listCustomApis, readCustomApi, replaceCustomApi } from './store';

/**
 * CAPI-1: who manages custom API definitions: holders of integration-full-all (admins hold it). A definition can send
 * any integration's secrets to a path of that integration and show what comes back, which is what full access to every
 * integration allows. Everyone else gets 403 on every route, reads included (headers may carry literal values).
 * Writes are audited (`customApi.create`, `.update`, `.delete`) in their own transaction.
 */
const manager = 'integration-full-all';

export const customApiHandlers = {
  async listCustomApis(_request, ctx) {
    assertPermission(requirePrincipal(ctx), manager);
    return { status: 200, body: await listCustomApis(ctx.db) };
  },

  async createCustomApi({ body }, ctx) {
    assertPermission(requirePrincipal(ctx), manager);
    const event = (made: CustomApiDefinition) => ({ action: 'customApi.create', targetType: 'customApi', targetId: made.id, details: { name: made.name } }) as const;
    const created = await audited<CustomApiDefinition>(ctx, event, (trx) => createCustomApi(trx, body as CustomApiInput));
    return { status: 201, body: created, headers: { Location: `/api/custom-apis/${created.id}` } };
  },

  async getCustomApi({ params }, ctx) {
    assertPermission(requirePrincipal(ctx), manager);
    return { status: 200, body: await readCustomApi(ctx.db, params.id) };
  },

  async replaceCustomApi({ params, body }, ctx) {
    assertPermission(requirePrincipal(ctx), manager);
    const event = (made: CustomApiDefinition) => ({ action: 'customApi.update', targetType: 'customApi', targetId: params.id, details: { name: made.name } }) as const;
    return { status: 200, body: await audited<CustomApiDefinition>(ctx, event, (trx) => replaceCustomApi(trx, params.id, body as CustomApiInput)) };
  },

  async deleteCustomApi({ params }, ctx) {
    assertPermission(requirePrincipal(ctx), manager);
    await audited(ctx, { action: 'customApi.delete', targetType: 'customApi', targetId: params.id }, (trx) => deleteCustomApi(trx, params.id));
    return { status: 204, body: undefined };
  },
} satisfies Partial<HandlerMap>;
