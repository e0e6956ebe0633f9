/**
 * HOOK-4..6: Standard Webhooks 1.0 signing. A secret is `whsec_` and the base64 of 32 random bytes; a signature is
 * `v1,` and the base64 HMAC-SHA256, keyed with the secret's decoded base64 part, of `<webhook-id>.<webhook-timestamp>.<body>`.
 * During a rotation's overlap a delivery carries one signature per secret, separated by a space (HOOK-6).
 */
import { createHmac, randomBytes } from 'node:crypto';

const prefix = 'whsec_';

export function newWebhookSecret(): string {
  return `${prefix}${randomBytes(32).toString('base64')}`;
}

export function webhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(prefix) ? secret.slice(prefix.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** HOOK-5: the three headers of a delivery, signed with every secret given (the current one first). */
export function webhookHeaders(secrets: readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => webhookSignature(secret, id, timestamp, body)).join(' '),
  };
}
