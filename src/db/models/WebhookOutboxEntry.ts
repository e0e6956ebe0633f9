import { BaseModel, col, rowSchema } from './BaseModel';

/**
 * `webhook_outbox` (HOOK-10, migration 0022): one event for one subscription, written in the transaction of the change
 * it reports (by `tessera_webhook_enqueue`), then claimed and delivered by a worker (HOOK-12).
 */
export class WebhookOutboxEntry extends BaseModel {
  static override tableName = 'webhook_outbox';
  static override idColumn = 'id';
  declare id: number | string;
  declare webhookId: string;
  declare eventId: string;
  declare eventType: string;
  declare payload: { type: string; timestamp: string; data: Record<string, unknown> };
  declare createdAt: Date;
  declare state: 'pending' | 'delivered' | 'failed';
  declare attempts: number;
  declare nextAttemptAt: Date;
  declare claimToken: string | null;

  static override jsonSchema = rowSchema(['webhookId', 'eventId', 'eventType', 'payload'], {
    id: { type: ['integer', 'string'] },
    webhookId: col.id,
    eventId: col.text,
    eventType: col.text,
    payload: col.json,
    createdAt: col.timestamp,
    state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: col.int,
    nextAttemptAt: col.timestamp,
    claimToken: col.nullableText,
  });

  static override relationMappings = () => ({
    webhook: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Webhook', join: { from: 'webhook_outbox.webhookId', to: 'webhooks.id' } },
  });
}
