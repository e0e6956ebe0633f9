/**
 * SECRET-*: the integration_secrets table. Values go in encrypted (SECRET-3) and come out decrypted only for the
 * widget-data service's requests to the service; answers carry kinds and dates only (SECRET-5).
 */
import type { Db } from '../../db/database';
import { whereAmong } from '../../db/idList';
import { IntegrationSecret, Webhook } from '../../db/models';
import type { SecretKind } from '../clients/types';
import type { SecretCipher } from './cipher';
import type { SecretChange } from './kinds';

export interface SecretStatus {
  kind: SecretKind;
  updatedAt: string;
}

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

/** The kinds each integration holds, with when each was last set, ordered by kind (no values). */
export async function secretStatuses(db: Db, integrationIds: readonly string[]): Promise<Map<string, SecretStatus[]>> {
  const result = new Map<string, SecretStatus[]>(integrationIds.map((id) => [id, []]));
  if (integrationIds.length === 0) return result;
  const rows = await IntegrationSecret.query(db)
    .modify(whereAmong, 'integrationId', integrationIds)
    .select('integrationId', 'kind', 'updatedAt')
    .orderBy(['integrationId', 'kind'])
    .castTo<{ integrationId: string; kind: SecretKind; updatedAt: Date }[]>();
  for (const row of rows) result.get(row.integrationId)?.push({ kind: row.kind, updatedAt: iso(row.updatedAt) });
  return result;
}

/** SECRET-4: applies checked changes in the caller's transaction: a value replaces its kind, null removes it. */
export async function applySecretChanges(trx: Db, cipher: SecretCipher, integrationId: string, changes: readonly SecretChange[]): Promise<void> {
  for (const change of changes) {
    if (change.value === null) {
      await IntegrationSecret.query(trx).where({ integrationId, kind: change.kind }).delete();
      continue;
    }
    await IntegrationSecret.query(trx)
      .insert({ integrationId, kind: change.kind, value: cipher.encrypt(change.value), updatedAt: trx.fn.now() as unknown as Date })
      .onConflict(['integrationId', 'kind'])
      .merge(['value', 'updatedAt']);
  }
}

/** The decrypted secrets of the given integrations, by id then kind: only for requests to their services. */
export async function decryptedSecrets(db: Db, cipher: SecretCipher, integrationIds: readonly string[]): Promise<Map<string, Partial<Record<SecretKind, string>>>> {
  const result = new Map<string, Partial<Record<SecretKind, string>>>(integrationIds.map((id) => [id, {}]));
  if (integrationIds.length === 0) return result;
  const rows = await IntegrationSecret.query(db)
    .modify(whereAmong, 'integrationId', integrationIds)
    .select('integrationId', 'kind', 'value')
    .castTo<{ integrationId: string; kind: SecretKind; value: string }[]>();
  for (const row of rows) result.get(row.integrationId)![row.kind] = cipher.decrypt(row.value);
  return result;
}

/**
 * SECRET-6: re-encrypts every stored secret (integration secrets, and webhook signing secrets, HOOK-4) from `current` to
 * `next` in one transaction (all or nothing). Values
 * already under `next` (a rotation run again after it committed) are left as they are. Returns how many changed.
 */
export async function rotateSecrets(db: Db, current: SecretCipher, next: SecretCipher): Promise<{ reencrypted: number; alreadyNew: number }> {
  return db.transaction(async (trx) => {
    const rows = await IntegrationSecret.query(trx).select('integrationId', 'kind', 'value').forUpdate().castTo<{ integrationId: string; kind: string; value: string }[]>();
    let reencrypted = 0;
    let alreadyNew = 0;
    for (const row of rows) {
      if (next.wrote(row.value)) {
        next.decrypt(row.value);
        alreadyNew++;
        continue;
      }
      const value = next.encrypt(current.decrypt(row.value));
      await IntegrationSecret.query(trx).where({ integrationId: row.integrationId, kind: row.kind }).patch({ value });
      reencrypted++;
    }
    // HOOK-4: webhook signing secrets are stored under the same key, and move with the integration secrets.
    const hooks = await Webhook.query(trx).select('id', 'secret', 'previousSecret').forUpdate().castTo<{ id: string; secret: string; previousSecret: string | null }[]>();
    for (const hook of hooks) {
      const moved = (stored: string) => (next.wrote(stored) ? (next.decrypt(stored), stored) : next.encrypt(current.decrypt(stored)));
      const secret = moved(hook.secret);
      const previousSecret = hook.previousSecret === null ? null : moved(hook.previousSecret);
      if (secret === hook.secret && previousSecret === hook.previousSecret) {
        alreadyNew++;
        continue;
      }
      await Webhook.query(trx).findById(hook.id).patch({ secret, previousSecret } as never);
      reencrypted++;
    }
    return { reencrypted, alreadyNew };
  });
}
