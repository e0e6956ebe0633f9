/**
 * HOOK-7..10: the events webhooks report, and the one way code enqueues one. Board events (`board.created`,
 * `board.changed`, `board.deleted`, `board.drifted`) are enqueued by the database's own triggers on the writes
 * (migration 0022), so no write path can forget them; the others are enqueued here, always in the transaction of the
 * change they report, so that an event exists exactly when its change committed (HOOK-10).
 */
import type { Knex } from 'knex';

export const webhookEventTypes = ['board.created', 'board.changed', 'board.deleted', 'boardSet.applied', 'board.drifted', 'provisioning.failed'] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/**
 * HOOK-10: one event for every enabled subscription of its type (and of `boardId`, for a subscription that names
 * boards; an event of no board goes to every subscription of its type), written on `trx`.
 */
export async function enqueueWebhookEvent(trx: Knex, type: WebhookEventType, boardId: string | null, data: Record<string, unknown>): Promise<void> {
  await trx.raw('SELECT tessera_webhook_enqueue(?, ?, ?::jsonb)', [type, boardId, JSON.stringify(data)]);
}
