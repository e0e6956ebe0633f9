/**
 * HOOK-1..3, HOOK-6, HOOK-16: the subscriptions' store. Secrets go in encrypted with the integration secrets' cipher
 * (SECRET-3) and come out only in the answer of a create or a rotation (HOOK-4); every other answer, and the log,
 * carries none. Writes run in the caller's transaction (the handlers' `audited`).
 */
import { badRequest, notFound } from '../core/errors';
import { decodeCursor, type Page, pageOfRows } from '../core/pages';
import type { Db } from '../db/database';
import { whereAmong } from '../db/idList';
import { newId } from '../db/ids';
import { Board, Webhook, WebhookDelivery, WebhookOutboxEntry } from '../db/models';
import type { SecretCipher } from '../integrations/secrets/cipher';
import { newWebhookSecret } from './signing';
import type { WebhookEventType } from './events';

export const webhookNotFound = 'Webhook not found';

export interface WebhookInput {
  url: string;
  events: WebhookEventType[];
  boardIds?: string[] | null;
  enabled?: boolean;
}

export interface WebhookView {
  webhookId: string;
  url: string;
  events: WebhookEventType[];
  boardIds: string[] | null;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
  /** HOOK-6: until when the secret before the last rotation still signs; null when only one secret signs. */
  previousSecretExpiresAt: string | null;
}

export interface DeliveryView {
  deliveryId: string;
  eventId: string;
  eventType: WebhookEventType;
  attempt: number;
  status: 'succeeded' | 'failed';
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  startedAt: string;
  finishedAt: string;
}

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();
const parse = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

function view(row: Webhook, now = Date.now()): WebhookView {
  const until = row.previousSecret && row.previousSecretUntil ? new Date(row.previousSecretUntil) : null;
  return {
    webhookId: row.id,
    url: row.url,
    events: parse(row.events),
    boardIds: parse(row.boardIds),
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    previousSecretExpiresAt: until && until.getTime() > now ? until.toISOString() : null,
  };
}

/** HOOK-2: an absolute http(s) URL, without a fragment (a receiver never sees one). */
export function webhookUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Webhook URL must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Webhook URL must be an absolute http(s) URL';
  if (url.hash) return 'Webhook URL must not have a fragment';
  return null;
}

/** HOOK-2: 400s for a bad URL and for boards that do not exist, before anything is written. */
async function checkInput(db: Db, input: { url?: string; boardIds?: string[] | null }): Promise<void> {
  if (input.url !== undefined) {
    const problem = webhookUrlProblem(input.url);
    if (problem) throw badRequest(problem, { issues: [{ instancePath: '/requestBody/url', message: problem }] });
  }
  if (input.boardIds) {
    const wanted = [...new Set(input.boardIds)];
    const found = new Set((await Board.query(db).modify(whereAmong, 'id', wanted).select('id')).map((row) => row.id));
    const unknown = wanted.filter((id) => !found.has(id));
    if (unknown.length > 0) throw badRequest(`Unknown board ids: ${unknown.join(', ')}`, { boardIds: unknown });
  }
}

const unique = <T>(values: readonly T[]) => [...new Set(values)];

export async function listWebhooks(db: Db): Promise<WebhookView[]> {
  return (await Webhook.query(db).orderBy(['createdAt', 'id'])).map((row) => view(row));
}

export async function readWebhook(db: Db, id: string): Promise<WebhookView> {
  const row = await Webhook.query(db).findById(id);
  if (!row) throw notFound(webhookNotFound);
  return view(row);
}

/** HOOK-1, HOOK-4: a new subscription and its secret (answered this once). */
export async function createWebhook(trx: Db, cipher: SecretCipher, input: WebhookInput): Promise<WebhookView & { secret: string }> {
  await checkInput(trx, input);
  const id = newId();
  const secret = newWebhookSecret();
  await Webhook.query(trx).insert({
    id,
    url: input.url,
    events: JSON.stringify(unique(input.events)),
    boardIds: input.boardIds ? JSON.stringify(unique(input.boardIds)) : null,
    enabled: input.enabled ?? true,
    secret: cipher.encrypt(secret),
  } as never);
  return { ...(await readWebhook(trx, id)), secret };
}

/** HOOK-3: changes the fields given; enabling a subscription clears why it was disabled (HOOK-15). */
export async function updateWebhook(trx: Db, id: string, input: Partial<WebhookInput>): Promise<WebhookView> {
  const row = await Webhook.query(trx).findById(id).forUpdate();
  if (!row) throw notFound(webhookNotFound);
  await checkInput(trx, input);
  const patch: Record<string, unknown> = { updatedAt: new Date().toISOString() };
  if (input.url !== undefined) patch.url = input.url;
  if (input.events !== undefined) patch.events = JSON.stringify(unique(input.events));
  if (input.boardIds !== undefined) patch.boardIds = input.boardIds === null ? null : JSON.stringify(unique(input.boardIds));
  if (input.enabled !== undefined) {
    patch.enabled = input.enabled;
    if (input.enabled) patch.disabledReason = null;
  }
  await Webhook.query(trx).findById(id).patch(patch as never);
  return readWebhook(trx, id);
}

export async function deleteWebhook(trx: Db, id: string): Promise<void> {
  // HOOK-12: the worker records an attempt by locking the event's outbox row, then inserting a delivery whose foreign
  // key locks the subscription. Deleting the subscription first and its outbox rows by cascade locks the other way
  // round (a deadlock, rolled back as a 500): the outbox rows are locked first, so a delete waits for the recording.
  await WebhookOutboxEntry.query(trx).where('webhookId', id).forUpdate().select('id');
  const deleted = await Webhook.query(trx).deleteById(id);
  if (deleted === 0) throw notFound(webhookNotFound);
}

/** HOOK-6: a new secret; the one it replaces keeps signing for `overlapMs` (answered this once). */
export async function rotateWebhookSecret(trx: Db, cipher: SecretCipher, id: string, overlapMs: number): Promise<WebhookView & { secret: string }> {
  const row = await Webhook.query(trx).findById(id).forUpdate();
  if (!row) throw notFound(webhookNotFound);
  const secret = newWebhookSecret();
  await Webhook.query(trx)
    .findById(id)
    .patch({
      secret: cipher.encrypt(secret),
      previousSecret: overlapMs > 0 ? row.secret : null,
      previousSecretUntil: overlapMs > 0 ? (trx.raw('now() + make_interval(secs => ?)', [overlapMs / 1000]) as never) : null,
      updatedAt: new Date().toISOString(),
    } as never);
  return { ...(await readWebhook(trx, id)), secret };
}

/** HOOK-16: the subscription's delivery attempts, newest first, paged as the other lists (HTTP-8). */
export async function listDeliveries(db: Db, id: string, query: { limit?: number; cursor?: string }): Promise<Page<DeliveryView>> {
  if (!(await Webhook.query(db).findById(id).select('id'))) throw notFound(webhookNotFound);
  const limit = query.limit ?? 100;
  const rows = await WebhookDelivery.query(db)
    .where({ webhookId: id })
    .modify((q) => {
      if (query.cursor !== undefined) q.where('id', '<', decodeCursor(query.cursor, ['number'])[0]);
    })
    .orderBy('id', 'desc')
    .limit(limit + 1);
  const page = pageOfRows(rows, limit, (row) => [Number(row.id)]);
  return {
    nextCursor: page.nextCursor,
    items: page.items.map((row) => ({
      deliveryId: String(row.id),
      eventId: row.eventId,
      eventType: row.eventType as WebhookEventType,
      attempt: row.attempt,
      status: row.status,
      responseStatus: row.responseStatus,
      durationMs: row.durationMs,
      error: row.error,
      startedAt: iso(row.startedAt),
      finishedAt: iso(row.finishedAt),
    })),
  };
}

/** HOOK-16: how long the delivery log and finished outbox rows are kept. */
export const webhookLogRetentionDays = 30;

/** HOOK-16: deletes delivery attempts and finished events older than the retention (hourly, on every instance). */
export async function pruneWebhookLog(db: Db): Promise<void> {
  const cutoff = db.raw('now() - make_interval(days => ?)', [webhookLogRetentionDays]);
  await WebhookDelivery.query(db).where('finishedAt', '<', cutoff).delete();
  await WebhookOutboxEntry.query(db).whereIn('state', ['delivered', 'failed']).where('createdAt', '<', cutoff).delete();
}
