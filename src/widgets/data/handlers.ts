import type { HandlerMap } from '../../core/operation';
import { recordAudit } from '../../observability/audit';
import { readItemData, runItemAction, type WidgetDataDeps } from './service';

/** The widget request path (WDATA-*): thin handlers over the widget-data service. */
export const widgetDataHandlers = (deps: WidgetDataDeps) =>
  ({
    async getItemData({ params }, ctx) {
      const body = await readItemData(ctx.db, deps, ctx.principal, params.id, params.itemId);
      // Shared by nobody but this caller: the answer depends on who asks (WDATA-8 actions) and changes every TTL.
      return { status: 200, body: body as never, headers: { 'Cache-Control': 'no-store' } };
    },

    async runItemDataAction({ params, body }, ctx) {
      const result = await runItemAction(ctx.db, deps, ctx.principal, params.id, params.itemId, body);
      // WDATA-9: audited with the outcome; details name the item, action and ids, never a credential.
      await recordAudit(ctx.db, ctx, {
        action: 'integration.action',
        outcome: result.status === 'ok' ? 'success' : 'failure',
        targetType: 'integration',
        targetId: body.integrationId,
        details: { boardId: params.id, itemId: params.itemId, action: body.action, ids: body.ids.length },
      });
      return { status: 200, body: { integrationId: body.integrationId, action: body.action, ids: [...body.ids], ...result } };
    },
  }) satisfies Partial<HandlerMap>;
