/**
 * HOOK-1..3, HOOK-6, HOOK-16: the webhook subscriptions' routes. Admins only (403 `Permission denied` otherwise, as
 * every admin route); every write is audited in its own transaction (`webhook.create`, `.update`, `.delete`,
 * `.rotate`; AUDIT-*), with the subscription's id and origin, never its secret.
 */
import type { HandlerMap } from '../core/operation';
import { requirePrincipal } from '../core/operation';
import { nextPageHeaders } from '../core/pages';
import { assertPermission } from '../identity/principal';
import type { SecretCipher } from '../integrations/secrets/cipher';
import { audited } from '../observability/audit';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, readWebhook, rotateWebhookSecret, updateWebhook, type WebhookInput, type WebhookView } from './store';

const originOf = (url: string) => new URL(url).origin;

export const webhookHandlers = (deps: { secrets: SecretCipher }) =>
  ({
    async listWebhooks(_request, ctx) {
      assertPermission(requirePrincipal(ctx), 'admin');
      return { status: 200, body: await listWebhooks(ctx.db) };
    },

    async createWebhook({ body }, ctx) {
      assertPermission(requirePrincipal(ctx), 'admin');
      const event = (made: WebhookView) => ({ action: 'webhook.create', targetType: 'webhook', targetId: made.webhookId, details: { origin: originOf(made.url), events: made.events } }) as const;
      const created = await audited<WebhookView & { secret: string }>(ctx, event, (trx) => createWebhook(trx, deps.secrets, body as WebhookInput));
      return { status: 201, body: created, headers: { Location: `/api/webhooks/${created.webhookId}` } };
    },

    async getWebhook({ params }, ctx) {
      assertPermission(requirePrincipal(ctx), 'admin');
      return { status: 200, body: await readWebhook(ctx.db, params.webhookId) };
    },

    async updateWebhook({ params, body }, ctx) {
      assertPermission(requirePrincipal(ctx), 'admin');
      const fields = Object.keys(body as object);
      const event = (made: WebhookView) => ({ action: 'webhook.update', targetType: 'webhook', targetId: made.webhookId, details: { origin: originOf(made.url), fields } }) as const;
      return { status: 200, body: await audited<WebhookView>(ctx, event, (trx) => updateWebhook(trx, params.webhookId, body as Partial<WebhookInput>)) };
    },

    async deleteWebhook({ params }, ctx) {
      assertPermission(requirePrincipal(ctx), 'admin');
      await audited(ctx, { action: 'webhook.delete', targetType: 'webhook', targetId: params.webhookId }, (trx) => deleteWebhook(trx, params.webhookId));
      return { status: 204, body: undefined };
    },

    async rotateWebhookSecret({ params }, ctx) {
      assertPermission(requirePrincipal(ctx), 'admin');
      const overlapMs = ctx.config.webhooks.secretOverlapMs;
      const event = (made: WebhookView) => ({ action: 'webhook.rotate', targetType: 'webhook', targetId: made.webhookId, details: { overlapSeconds: overlapMs / 1000 } }) as const;
      return { status: 200, body: await audited<WebhookView & { secret: string }>(ctx, event, (trx) => rotateWebhookSecret(trx, deps.secrets, params.webhookId, overlapMs)) };
    },

    async listWebhookDeliveries({ params, query }, ctx) {
      assertPermission(requirePrincipal(ctx), 'admin');
      const page = await listDeliveries(ctx.db, params.webhookId, query);
      return { status: 200, body: page.items, headers: nextPageHeaders(`/api/webhooks/${params.webhookId}/deliveries`, query, page.nextCursor) };
    },
  }) satisfies Partial<HandlerMap>;
