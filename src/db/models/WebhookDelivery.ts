import { BaseModel, col, rowSchema } from './BaseModel';

/** `webhook_deliveries` (HOOK-16, migration 0022): one delivery attempt of an event to a subscription, as it went. */
export class WebhookDelivery extends BaseModel {
  static override tableName = 'webhook_deliveries';
  static override idColumn = 'id';
  declare id: number | string;
  declare webhookId: string;
  declare eventId: string;
  declare eventType: string;
  declare attempt: number;
  declare status: 'succeeded' | 'failed';
  declare responseStatus: number | null;
  declare error: string | null;
  declare durationMs: number;
  declare startedAt: Date;
  declare finishedAt: Date;

  static override jsonSchema = rowSchema(['webhookId', 'eventId', 'eventType', 'attempt', 'status', 'durationMs'], {
    id: { type: ['integer', 'string'] },
    webhookId: col.id,
    eventId: col.text,
    eventType: col.text,
    attempt: col.int,
    status: { type: 'string', enum: ['succeeded', 'failed'] },
    responseStatus: { type: ['integer', 'null'] },
    error: col.nullableText,
    durationMs: col.int,
    startedAt: col.timestamp,
    finishedAt: col.timestamp,
  });

  static override relationMappings = () => ({
    webhook: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Webhook', join: { from: 'webhook_deliveries.webhookId', to: 'webhooks.id' } },
  });
}
