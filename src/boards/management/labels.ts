/**
 * FLEET-13..15: `managedBy` labels are owned. A label belongs to whoever first wrote a board under it (a set apply,
 * an import): a user, or provisioning for the labels of its sources. Only its owner or an admin may create a board
 * under it, or move a board onto it or off it, on every surface: set apply, import, and the MCP and tRPC calls that
 * map onto them all come through `assertMayWriteLabel`. Admins transfer or release a label.
 */
import type { Knex } from 'knex';
import { badRequest, forbidden, notFound, type ApiError } from '../../core/errors';
import type { Db } from '../../db/database';
import { Board, BoardLabel, User } from '../../db/models';
import { assertPermission, type Principal } from '../../identity/principal';

export type LabelOwner = { kind: 'user'; userId: string; username: string | null } | { kind: 'provisioning' };

export interface LabelEntry {
  label: string;
  /** null: nobody owns the label; the next writer of a board under it claims it. */
  owner: LabelOwner | null;
  claimedAt: string | null;
  /** How many boards carry the label. */
  boards: number;
}

/** Who writes: a user, or provisioning (its sources' labels are its own, PROV-1). */
export type LabelWriter = { principal: Principal; provisioning?: boolean };

const isAdmin = (principal: Principal) => principal.permissions.has('admin');

/** FLEET-14: the 403 of a label another owner holds; it names the label, never the owner. */
export function labelOwnedByAnother(label: string, owner: 'user' | 'provisioning'): ApiError {
  const whose = owner === 'provisioning' ? 'provisioning' : 'another user';
  return forbidden(`Label ${label} belongs to ${whose}: only its owner or an admin may write boards under it`, { managedBy: label, owner });
}

/**
 * FLEET-14: the one check of every write that puts a board under `label` or takes one off it. An owner-less label is
 * claimed by this writer (the insert races on the primary key, so the database decides who was first); a label
 * another user owns is a 403 unless the writer is an admin; provisioning's labels are provisioning's (or an admin's).
 * Provisioning itself takes the labels of its sources, whoever held them (the admin configured them). Runs in the
 * writer's transaction: a write that rolls back claims nothing.
 */
export async function assertMayWriteLabel(trx: Knex.Transaction, writer: LabelWriter, label: string): Promise<void> {
  if (writer.provisioning) {
    await BoardLabel.query(trx)
      .insert({ label, ownerKind: 'provisioning', ownerUserId: null })
      .onConflict('label')
      .merge({ ownerKind: 'provisioning', ownerUserId: null });
    return;
  }
  const { principal } = writer;
  await BoardLabel.query(trx).insert({ label, ownerKind: 'user', ownerUserId: principal.userId }).onConflict('label').ignore();
  const row = await BoardLabel.query(trx).findById(label).select('ownerKind', 'ownerUserId');
  if (!row || isAdmin(principal)) return;
  if (row.ownerKind === 'user' && row.ownerUserId === principal.userId) return;
  throw labelOwnedByAnother(label, row.ownerKind);
}

/**
 * FLEET-14: a board's label changing from `before` to `after` (a create is from null): the writer must be allowed on
 * the label it leaves and on the label it takes; a board that keeps its label needs nothing more than the write's
 * own access rules.
 */
export async function assertMayRelabel(trx: Knex.Transaction, writer: LabelWriter, before: string | null, after: string | null): Promise<void> {
  if (before === after) return;
  if (before !== null) await assertMayWriteLabel(trx, writer, before);
  if (after !== null) await assertMayWriteLabel(trx, writer, after);
}

/** FLEET-15: every label that has an owner or is on a board, with its owner and how many boards carry it (admin). */
export async function listLabels(db: Db, principal: Principal): Promise<LabelEntry[]> {
  assertPermission(principal, 'admin');
  const owned: { label: string; ownerKind: 'user' | 'provisioning'; ownerUserId: string | null; claimedAt: Date; username: string | null }[] = await BoardLabel.query(db)
    .leftJoin(User.tableName, `${User.tableName}.id`, `${BoardLabel.tableName}.ownerUserId`)
    .select(`${BoardLabel.tableName}.label`, 'ownerKind', 'ownerUserId', 'claimedAt', `${User.tableName}.username as username`)
    .castTo<never>();
  const counts: { managedBy: string; boards: string | number }[] = await Board.query(db).whereNotNull('managedBy').groupBy('managedBy').select('managedBy').count('* as boards').castTo<never>();
  const entries = new Map<string, LabelEntry>();
  for (const row of owned) {
    const owner: LabelOwner = row.ownerKind === 'provisioning' ? { kind: 'provisioning' } : { kind: 'user', userId: row.ownerUserId!, username: row.username };
    entries.set(row.label, { label: row.label, owner, claimedAt: new Date(row.claimedAt).toISOString(), boards: 0 });
  }
  for (const { managedBy, boards } of counts) {
    const entry = entries.get(managedBy) ?? { label: managedBy, owner: null, claimedAt: null, boards: 0 };
    entry.boards = Number(boards);
    entries.set(managedBy, entry);
  }
  return [...entries.values()].sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

async function labelEntry(db: Db, principal: Principal, label: string): Promise<LabelEntry> {
  return (await listLabels(db, principal)).find((entry) => entry.label === label) ?? { label, owner: null, claimedAt: null, boards: 0 };
}

/** FLEET-15: an admin gives the label to a user (404 `User not found`); the label need not be in use yet. */
export async function transferLabel(trx: Db, principal: Principal, label: string, userId: string): Promise<LabelEntry> {
  assertPermission(principal, 'admin');
  if (label.trim() === '') throw badRequest('A label must not be empty', { managedBy: label });
  const user = await User.query(trx).findById(userId).select('id');
  if (!user) throw notFound('User not found');
  await BoardLabel.query(trx)
    .insert({ label, ownerKind: 'user', ownerUserId: userId, claimedAt: new Date() })
    .onConflict('label')
    .merge({ ownerKind: 'user', ownerUserId: userId, claimedAt: new Date() });
  return labelEntry(trx, principal, label);
}

/** FLEET-15: an admin releases the label: it has no owner until the next writer under it claims it. Idempotent. */
export async function releaseLabel(trx: Db, principal: Principal, label: string): Promise<boolean> {
  assertPermission(principal, 'admin');
  return (await BoardLabel.query(trx).deleteById(label)) > 0;
}
