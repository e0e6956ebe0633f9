/**
 * HOOK-11..15: the delivery worker every instance runs. Each round claims due outbox rows with
 * `FOR UPDATE SKIP LOCKED` in a short transaction and leases them (their next attempt moved past the delivery's
 * timeout, a claim token set), so that no two instances claim the same row; each claimed event is then POSTed through
 * the one outbound fetcher (OUT-1) and its outcome written back only under the claim's token. A row whose instance
 * died mid-delivery is claimed again once its lease ends: each event is delivered by one instance at a time, at least
 * once to the receiver. Failures are retried with exponential backoff and jitter until the retry window after the
 * event has passed (HOOK-13); a subscription none of whose attempts succeeded over a whole window is disabled and the
 * disabling audited (HOOK-15). `stop` ends the rounds and waits for the one running (graceful shutdown).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { WebhookConfig } from '../config/config';
import type { Db } from '../db/database';
import { Webhook, WebhookDelivery, WebhookOutboxEntry } from '../db/models';
import type { SecretCipher } from '../integrations/secrets/cipher';
import { recordAudit } from '../observability/audit';
import { metrics } from '../observability/metrics';
import { OutboundError, outboundFetch, shownOrigin } from '../outbound/fetch';
import { webhookHeaders } from './signing';

/** How many events one round claims at most (delivered at once). */
const batchSize = 16;
/** HOOK-11: the bytes of a receiver's answer read at most (the answer is not kept). */
const maxAnswerBytes = 64 * 1024;
/** HOOK-13: the longest delay between two attempts. */
const maxDelayMs = 3_600_000;
/** HOOK-16: the longest error message kept in the delivery log. */
const maxErrorLength = 500;

interface Claimed {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  payload: unknown;
  createdAt: Date;
  attempts: number;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
}

/** HOOK-13: the delay before attempt `attempt + 1`: base·2^(attempt-1), capped, with ±20 % jitter. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  const plain = Math.min(maxDelayMs, baseMs * 2 ** Math.min(30, attempt - 1));
  return Math.round(plain * (0.8 + Math.random() * 0.4));
}

const errorText = (error: unknown) => (error instanceof OutboundError ? error.message : 'delivery failed').slice(0, maxErrorLength);

export class WebhookWorker {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly cipher: SecretCipher,
    private readonly config: WebhookConfig,
    private readonly logger: Logger,
  ) {}

  /** HOOK-12: WEBHOOK_POLL_MS=0 starts no rounds: this instance leaves the deliveries to the others. */
  start(): void {
    if (this.config.pollMs > 0) this.schedule(0);
  }

  /** Ends the rounds; settles once the round in progress (its deliveries bounded by WEBHOOK_TIMEOUT_MS) is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.round;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.round = this.runRound()
        .catch((error) => this.logger.warn({ err: error }, 'webhooks: a delivery round failed'))
        .then((full) => this.schedule(full === true ? 0 : this.config.pollMs));
    }, delayMs);
    this.timer.unref();
  }

  /** One round: claims due events and delivers them; true when it claimed a full batch (more may be due). */
  private async runRound(): Promise<boolean> {
    const token = randomUUID();
    const claimed = await this.claim(token);
    await Promise.all(claimed.map((row) => this.deliver(row, token)));
    return claimed.length === batchSize;
  }

  /** HOOK-12: due rows of enabled subscriptions, locked with SKIP LOCKED and leased past the delivery's timeout. */
  private async claim(token: string): Promise<Claimed[]> {
    const leaseMs = this.config.timeoutMs + 30_000;
    return this.db.transaction(async (trx) => {
      const rows = await WebhookOutboxEntry.query(trx)
        .alias('o')
        .join(`${Webhook.tableName} as w`, 'w.id', 'o.webhookId')
        .where('o.state', 'pending')
        .where('o.nextAttemptAt', '<=', trx.fn.now())
        .where('w.enabled', true)
        .orderBy('o.nextAttemptAt')
        .limit(batchSize)
        .modify((q) => (q as unknown as { forUpdate(table: string): void }).forUpdate('o'))
        .skipLocked()
        .select('o.id', 'o.webhookId', 'o.eventId', 'o.eventType', 'o.payload', 'o.createdAt', 'o.attempts', 'w.url', 'w.secret', 'w.previousSecret', 'w.previousSecretUntil')
        .castTo<Claimed[]>();
      if (rows.length === 0) return [];
      await WebhookOutboxEntry.query(trx)
        .whereIn(
          'id',
          rows.map((row) => row.id),
        )
        .patch({ claimToken: token, attempts: trx.raw('attempts + 1'), nextAttemptAt: trx.raw('now() + make_interval(secs => ?)', [leaseMs / 1000]) } as never);
      return rows.map((row) => ({ ...row, id: String(row.id), attempts: row.attempts + 1 }));
    });
  }

  private async deliver(row: Claimed, token: string): Promise<void> {
    const body = JSON.stringify(typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload);
    const secrets = [this.cipher.decrypt(row.secret)];
    if (row.previousSecret && row.previousSecretUntil && new Date(row.previousSecretUntil).getTime() > Date.now()) secrets.push(this.cipher.decrypt(row.previousSecret));
    const startedAt = new Date();
    let responseStatus: number | null = null;
    let error: string | null = null;
    try {
      const answer = await outboundFetch(row.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Tessera-Webhooks', ...webhookHeaders(secrets, row.eventId, Math.floor(startedAt.getTime() / 1000), body) },
        body,
        timeoutMs: this.config.timeoutMs,
        maxBytes: maxAnswerBytes,
      });
      responseStatus = answer.status;
      if (answer.status < 200 || answer.status > 299) error = `the receiver answered HTTP ${answer.status}`;
    } catch (caught) {
      error = errorText(caught);
    }
    const finishedAt = new Date();
    const durationMs = finishedAt.getTime() - startedAt.getTime();
    const succeeded = error === null;
    metrics.webhookDeliveries.inc({ event: row.eventType, outcome: succeeded ? 'succeeded' : 'failed' });
    metrics.webhookDeliveryDuration.observe(durationMs / 1000);
    try {
      await this.db.transaction((trx) => this.record(trx, row, token, { succeeded, responseStatus, error, durationMs, startedAt, finishedAt }));
    } catch (caught) {
      // The lease ends and another round tries again: at least once.
      this.logger.warn({ err: caught, webhookId: row.webhookId, eventId: row.eventId }, 'webhooks: a delivery outcome was not recorded');
    }
  }

  private async record(
    trx: Knex.Transaction,
    row: Claimed,
    token: string,
    outcome: { succeeded: boolean; responseStatus: number | null; error: string | null; durationMs: number; startedAt: Date; finishedAt: Date },
  ): Promise<void> {
    // Written only while the claim is this round's (a row whose lease ended went to another round).
    const mine = await WebhookOutboxEntry.query(trx).where({ id: row.id, claimToken: token }).forUpdate().select('id').first();
    if (!mine) return;
    await WebhookDelivery.query(trx).insert({
      webhookId: row.webhookId,
      eventId: row.eventId,
      eventType: row.eventType,
      attempt: row.attempts,
      status: outcome.succeeded ? 'succeeded' : 'failed',
      responseStatus: outcome.responseStatus,
      error: outcome.error,
      durationMs: outcome.durationMs,
      startedAt: outcome.startedAt.toISOString(),
      finishedAt: outcome.finishedAt.toISOString(),
    } as never);
    if (outcome.succeeded) {
      await WebhookOutboxEntry.query(trx).findById(row.id).patch({ state: 'delivered', claimToken: null } as never);
      return;
    }
    const delay = retryDelayMs(row.attempts, this.config.retryBaseMs);
    const windowEnds = new Date(row.createdAt).getTime() + this.config.retryWindowMs;
    if (Date.now() + delay <= windowEnds) {
      await WebhookOutboxEntry.query(trx)
        .findById(row.id)
        .patch({ claimToken: null, nextAttemptAt: trx.raw('now() + make_interval(secs => ?)', [delay / 1000]) } as never);
      return;
    }
    // HOOK-14: the window has passed: the event failed.
    await WebhookOutboxEntry.query(trx).findById(row.id).patch({ state: 'failed', claimToken: null } as never);
    this.logger.warn({ webhookId: row.webhookId, eventId: row.eventId, eventType: row.eventType, attempts: row.attempts }, 'webhooks: an event could not be delivered');
    // HOOK-15: no attempt to this subscription succeeded since the event: every attempt over a whole window failed.
    const succeededSince = await WebhookDelivery.query(trx)
      .where({ webhookId: row.webhookId, status: 'succeeded' })
      .where('startedAt', '>=', new Date(row.createdAt).toISOString())
      .select('id')
      .first();
    if (succeededSince) return;
    const reason = `every delivery attempt failed for ${Math.round(this.config.retryWindowMs / 1000)} s (last: ${outcome.error})`.slice(0, maxErrorLength);
    const disabled = await Webhook.query(trx).findById(row.webhookId).where('enabled', true).patch({ enabled: false, disabledReason: reason, updatedAt: new Date().toISOString() } as never);
    if (disabled === 0) return;
    await recordAudit(
      trx,
      { db: trx, logger: this.logger, requestId: null, clientIp: null, surface: 'webhooks', principal: null },
      { action: 'webhook.disable', targetType: 'webhook', targetId: row.webhookId, details: { origin: shownOrigin(new URL(row.url)), eventId: row.eventId, attempts: row.attempts } },
    );
  }
}
