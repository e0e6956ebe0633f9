import { BaseModel, col, rowSchema } from './BaseModel';

/** `login_failures`: failed logins per throttle key in the current window (src/identity/loginThrottle.ts). */
export class LoginFailure extends BaseModel {
  static override tableName = 'login_failures';
  static override idColumn = 'key';
  declare key: string;
  declare failures: number;
  declare windowStartedAt: Date;

  static override jsonSchema = rowSchema(['key'], { key: col.text, failures: { type: 'integer', minimum: 0 }, windowStartedAt: col.timestamp });
}
