import { BaseModel, col, rowSchema } from './BaseModel';

/** `server_settings`: one JSON value per key (`boardSettings`, `instance`, …). */
export class ServerSetting extends BaseModel {
  static override tableName = 'server_settings';
  static override idColumn = 'key';
  declare key: string;
  declare value: unknown;

  static override jsonSchema = rowSchema(['key', 'value'], { key: col.text, value: col.json });
}
