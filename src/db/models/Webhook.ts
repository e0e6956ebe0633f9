import { BaseModel, col, rowSchema } from './BaseModel';

/**
 * `webhooks` (HOOK-1, migration 0022): an admin's webhook subscription. `secret` and `previousSecret` are stored
 * encrypted (SECRET-3's cipher), never as plaintext; `previousSecret` signs too until `previousSecretUntil` (HOOK-6).
 */
export class Webhook extends BaseModel {
  static override tableName = 'webhooks';
  static override idColumn = 'id';
  declare id: string;
  declare url: string;
  declare events: string[];
  declare boardIds: string[] | null;
  declare enabled: boolean;
  declare disabledReason: string | null;
  declare secret: string;
  declare previousSecret: string | null;
  declare previousSecretUntil: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;

  static override jsonSchema = rowSchema(['id', 'url', 'events', 'secret'], {
    id: col.id,
    url: col.text,
    events: col.json,
    boardIds: col.json,
    enabled: col.bool,
    disabledReason: col.nullableText,
    secret: col.text,
    previousSecret: col.nullableText,
    previousSecretUntil: col.nullableTimestamp,
    createdAt: col.timestamp,
    updatedAt: col.timestamp,
  });
}
