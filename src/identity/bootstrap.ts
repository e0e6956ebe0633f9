import type { Db } from '../db/database';
import { isUniqueViolation } from '../db/errors';
import { newId } from '../db/ids';
import { insertApiKey } from './apiKeys';
import { hashPassword, passwordFitsBcrypt } from './secrets';
import { Group, GroupMember, GroupPermission, User } from '../db/models';

export interface BootstrapResult {
  created: boolean;
  /** The admin key, when one was generated (not when it came from BOOTSTRAP_ADMIN_API_KEY). */
  generatedApiKey: string | null;
}

/**
 * On an empty database: user `admin` in group `admins` holding `admin`, plus an API key for it.
 * One transaction; when two instances start at once the unique username index lets exactly one win.
 */
export async function bootstrapAdmin(db: Db, options: { apiKey: string | null; password: string | null }): Promise<BootstrapResult> {
  if (options.password !== null && !passwordFitsBcrypt(options.password)) {
    throw new Error('BOOTSTRAP_ADMIN_PASSWORD must be at most 72 bytes long');
  }
  const passwordHash = options.password ? await hashPassword(options.password) : null;
  try {
    return await db.transaction(async (trx) => {
      const anyUser = await User.query(trx).select('id').first();
      if (anyUser) return { created: false, generatedApiKey: null };
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
