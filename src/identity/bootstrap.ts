import type { Db } from '../db/database';
import { isUniqueViolation } from '../db/errors';
import { newId } from '../db/ids';
import { insertApiKey } from './apiKeys';
import { hashPassword, passwordProblem } from './secrets';
import { Group, GroupMember, GroupPermission, User } from '../db/models';

export interface BootstrapResult {
  created: boolean;
  /** The admin key, when one was generated (not when it came from BOOTSTRAP_ADMIN_API_KEY). */
  generatedApiKey: string | null;
  /** NAV-7: BOOTSTRAP_ADMIN_PASSWORD was given to an existing `admin` that had no password. */
  passwordSet?: boolean;
}

/**
 * On an empty database: user `admin` in group `admins` holding `admin`, plus an API key for it.
 * One transaction; when two instances start at once the unique username index lets exactly one win.
 * With `password` (BOOTSTRAP_ADMIN_PASSWORD) on a database that has users, user `admin` gets it if it has no password
 * yet (NAV-7); a password set before is never replaced. The password itself is never logged.
 */
export async function bootstrapAdmin(db: Db, options: { apiKey: string | null; password: string | null }): Promise<BootstrapResult> {
  const problem = options.password === null ? null : passwordProblem(options.password);
  if (problem) throw new Error(`BOOTSTRAP_ADMIN_PASSWORD ${problem}`);
  // Without a password to give, a database that has users needs nothing: a read says so, without a transaction.
  if (options.password === null && (await User.query(db).select('id').first())) return { created: false, generatedApiKey: null, passwordSet: false };
  const passwordHash = options.password ? await hashPassword(options.password) : null;
  try {
    return await db.transaction(async (trx) => {
      const anyUser = await User.query(trx).select('id').first();
      if (anyUser) {
        // NAV-7: a later start with BOOTSTRAP_ADMIN_PASSWORD gives the bootstrap admin a password, only while it has none.
        const updated = passwordHash ? await User.query(trx).where({ username: 'admin' }).whereNull('passwordHash').patch({ passwordHash }) : 0;
        return { created: false, generatedApiKey: null, passwordSet: Number(updated) > 0 };
      }
      const userId = newId();
      const groupId = newId();
      await User.query(trx).insert({ id: userId, username: 'admin', passwordHash });
      await Group.query(trx).insert({ id: groupId, name: 'admins', ownerId: userId, position: 0 });
      await GroupPermission.query(trx).insert({ groupId, permission: 'admin' });
      await GroupMember.query(trx).insert({ groupId, userId });
      const key = await insertApiKey(trx, { userId, name: 'bootstrap', presetValue: options.apiKey ?? undefined });
      return { created: true, generatedApiKey: options.apiKey ? null : key.apiKey };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { created: false, generatedApiKey: null };
    throw error;
  }
}
