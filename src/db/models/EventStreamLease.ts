import { BaseModel, col, rowSchema } from './BaseModel';

/** `event_stream_leases`: one open event stream of a caller on some instance (EVENT-5, migration 0012). */
export class EventStreamLease extends BaseModel {
  static override tableName = 'event_stream_leases';
  declare id: string;
  declare callerKey: string;
  declare holder: string;
  declare expiresAt: Date;

  static override jsonSchema = rowSchema(['id', 'callerKey', 'holder', 'expiresAt'], { id: col.id, callerKey: col.text, holder: col.text, expiresAt: col.timestamp });
}
