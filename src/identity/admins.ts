/**
 * ADMIN-1: no change leaves the instance without a user holding `admin`. Every change that can take `admin` away
 * (a membership removed, group permissions replaced, a group or a user deleted) runs inside its transaction after
 * one transaction-scoped advisory lock, so such changes run one after the other across instances: two admins
 * removing each other at once cannot both succeed, the database decides which one does.
 */
import type { Knex } from 'knex';
import { conflict } from '../core/errors';
import { GroupMember, GroupPermission } from '../db/models';

export const lastAdminMessage = 'This change would leave no user with the admin permission';

/** Whether some user holds `admin` (nothing else implies it, see permissions.ts), as the transaction sees it now. */
async function anyAdmin(trx: Knex.Transaction): Promise<boolean> {
  const { rows } = await trx.raw<{ rows: { found: boolean }[] }>(
    `SELECT EXISTS (SELECT 1 FROM ${GroupMember.tableName} gm JOIN ${GroupPermission.tableName} gp ON gp.group_id = gm.group_id WHERE gp.permission = 'admin') AS found`,
  );
  return rows[0].found;
}

/**
 * Runs `change` in `trx` and refuses it with 409 when there was an admin before and there is none after it (the
 * throw rolls the transaction back). The lock is taken before the first read, so the two reads and the change see
 * every admin-removing change committed before and none that runs meanwhile.
 */
export async function keepingAnAdmin<T>(trx: Knex.Transaction, change: () => Promise<T>): Promise<T> {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('tessera.admins'))`);
  const before = await anyAdmin(trx);
  const result = await change();
  if (before && !(await anyAdmin(trx))) throw conflict(lastAdminMessage);
  return result;
}
