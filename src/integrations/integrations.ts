import { isIntegrationUrl } from './url';
import type { Db } from '../db/database';
import { recordIntegrationUnbound } from '../boards/document/bindings';
import type { HistoryContext } from '../boards/history/record';
import { newId } from '../db/ids';
import { badRequest, forbidden, notFound } from '../core/errors';
import type { Principal } from '../identity/principal';
import { IntegrationAccessFlags, loadIntegrationAccess } from './access';
import { IntegrationKind, kindPosition } from './kinds';
import { whereAmong } from '../db/idList';
import { Page, pageOfList, type PageRequest, type Position } from '../core/pages';
import { Integration, IntegrationItem, IntegrationSecret, IntegrationUserPermission, Item, WidgetDataCache } from '../db/models';
import type { SecretCipher } from './secrets/cipher';
import { planSecretKinds, type SecretChange } from './secrets/kinds';
import { applySecretChanges, secretStatuses, type SecretStatus } from './secrets/store';

export interface IntegrationEntry {
  id: string;
  name: string;
  kind: IntegrationKind;
  url: string;
  permissions: IntegrationAccessFlags;
  /** SECRET-5: the secret kinds held and when each was set; never a value. */
  secrets: SecretStatus[];
}

const columns = ['id', 'name', 'kind', 'url'];

/** An integration is visible to the caller when any of its flags is true. */
export function isVisible(flags: IntegrationAccessFlags | undefined): flags is IntegrationAccessFlags {
  return flags !== undefined && (flags.hasUseAccess || flags.hasInteractAccess || flags.hasFullAccess);
}

/** Sort order of the listing: position of the kind in the kind list, then name, then id. */
export function compareIntegrations(a: { kind: string; name: string; id: string }, b: { kind: string; name: string; id: string }): number {
  return kindPosition(a.kind) - kindPosition(b.kind) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * GET /api/integrations: every integration the caller can see, with flags from loadIntegrationAccess (the same rule
 * the binding check uses). Integrations created between the two queries are left out.
 */
export async function listVisibleIntegrations(db: Db, principal: Principal, page: PageRequest = {}): Promise<Page<IntegrationEntry>> {
  const access = await loadIntegrationAccess(db, principal, null);
  const visibleIds = [...access].filter(([, flags]) => isVisible(flags)).map(([id]) => id);
  if (visibleIds.length === 0) return { items: [], nextCursor: null };
  const rows = await Integration.query(db).modify(whereAmong, 'id', visibleIds).select(columns).castTo<Omit<IntegrationEntry, 'permissions' | 'secrets'>[]>();
  const secrets = await secretStatuses(db, rows.map((row) => row.id));
  const entries = rows.map((row) => ({ ...row, permissions: access.get(row.id)!, secrets: secrets.get(row.id) ?? [] })).sort(compareIntegrations);
  // HTTP-8: the position of an integration in the list is its kind, name and id.
  const byPosition = (a: Position, b: Position) => compareIntegrations({ kind: a[0] as string, name: a[1] as string, id: a[2] as string }, { kind: b[0] as string, name: b[1] as string, id: b[2] as string });
  return pageOfList(entries, page, ['string', 'string', 'string'], (entry) => [entry.kind, entry.name, entry.id], byPosition);
}

/**
 * VIEW-6, VIEW-7: the names of the integrations bound to the board's items that the caller can see (those
 * GET /api/integrations lists to it; none to an anonymous caller, which may not list integrations).
 */
export async function boardIntegrationNames(db: Db, principal: Principal | null, boardId: string): Promise<{ id: string; name: string }[]> {
  if (!principal) return [];
  const bound = await IntegrationItem.query(db)
    .join(Item.tableName, Item.col('id'), IntegrationItem.col('itemId'))
    .where(Item.col('boardId'), boardId)
    .distinct(IntegrationItem.col('integrationId'))
    .castTo<{ integrationId: string }[]>();
  if (bound.length === 0) return [];
  const access = await loadIntegrationAccess(db, principal, bound.map((row) => row.integrationId));
  const visible = bound.map((row) => row.integrationId).filter((id) => isVisible(access.get(id)));
  if (visible.length === 0) return [];
  return Integration.query(db).modify(whereAmong, 'id', visible).select('id', 'name').orderBy('id').castTo<{ id: string; name: string }[]>();
}

/** One integration the caller can see; 404 `Integration not found` when missing or invisible. */
export async function readIntegration(db: Db, principal: Principal, id: string): Promise<IntegrationEntry> {
  const flags = (await loadIntegrationAccess(db, principal, [id])).get(id);
  if (!isVisible(flags)) throw notFound('Integration not found');
  const row = await Integration.query(db).findById(id).select(columns).castTo<Omit<IntegrationEntry, 'permissions' | 'secrets'> | undefined>();
  if (!row) throw notFound('Integration not found');
  return { ...row, permissions: flags, secrets: (await secretStatuses(db, [id])).get(id) ?? [] };
}

/** Gate of DELETE and the permission routes: 404 when not visible at all, 403 `Permission denied` when visible but not full. */
export async function assertIntegrationFullAccess(db: Db, principal: Principal, id: string): Promise<void> {
  const flags = (await loadIntegrationAccess(db, principal, [id])).get(id);
  if (!isVisible(flags)) throw notFound('Integration not found');
  if (!flags.hasFullAccess) throw forbidden();
}

/** Trims the name and url; the url must be an http(s) URL of INTEG-2 and the trimmed name must keep 1-64 characters. */
export function normalizeIntegrationInput(input: { name: string; kind: IntegrationKind; url: string }): { name: string; kind: IntegrationKind; url: string } {
  const issues: { instancePath: string; message: string }[] = [];
  const name = input.name.trim();
  const url = input.url.trim();
  if (name.length === 0) issues.push({ instancePath: '/body/name', message: 'must be 1 to 64 characters after trimming' });
  // INTEG-2: the pattern of the schema IntegrationUrl, every match of which parses as a URL.
  if (!isIntegrationUrl(input.url)) issues.push({ instancePath: '/body/url', message: 'must be an http:// or https:// URL' });
  if (issues.length > 0) throw badRequest('Input validation failed', { issues });
  return { name, kind: input.kind, url };
}

/**
 * POST: the creator receives a `full` user row (upstream grants none, which would hide it from its creator). SECRET-1:
 * the secrets given are checked against the kind's sets before anything is written, and stored encrypted with it.
 */
export async function createIntegration(
  db: Db,
  principal: Principal,
  input: { name: string; kind: IntegrationKind; url: string },
  secrets: { cipher: SecretCipher; changes: readonly SecretChange[] },
): Promise<string> {
  planSecretKinds(input.kind, [], secrets.changes);
  const id = newId();
  await db.transaction(async (trx) => {
    await Integration.query(trx).insert({ id, ...input });
    await IntegrationUserPermission.query(trx).insert({ integrationId: id, userId: principal.userId, permission: 'full' });
    await applySecretChanges(trx, secrets.cipher, id, secrets.changes);
  });
  return id;
}

export interface IntegrationUpdate {
  name?: string;
  url?: string;
  secrets?: readonly SecretChange[];
}

/**
 * PATCH (SECRET-4): full access; name and url replaced when given; each secret given replaces its kind, a null value
 * removes it, kinds not named are kept. The kinds held afterwards are checked as on POST. One transaction.
 */
export async function updateIntegration(db: Db, principal: Principal, id: string, update: IntegrationUpdate, cipher: SecretCipher): Promise<void> {
  const issues: { instancePath: string; message: string }[] = [];
  const name = update.name?.trim();
  if (name !== undefined && name.length === 0) issues.push({ instancePath: '/body/name', message: 'must be 1 to 64 characters after trimming' });
  if (update.url !== undefined && !isIntegrationUrl(update.url)) issues.push({ instancePath: '/body/url', message: 'must be an http:// or https:// URL' });
  if (issues.length > 0) throw badRequest('Input validation failed', { issues });
  await db.transaction(async (trx) => {
    await assertIntegrationFullAccess(trx, principal, id);
    const row = await Integration.query(trx).findById(id).select('kind').forUpdate().castTo<{ kind: IntegrationKind } | undefined>();
    if (!row) throw notFound('Integration not found');
    const changes = update.secrets ?? [];
    if (changes.length > 0) {
      const held = await IntegrationSecret.query(trx).where({ integrationId: id }).select('kind').castTo<{ kind: string }[]>();
      planSecretKinds(row.kind, held.map((h) => h.kind), changes);
    }
    const fields = { ...(name !== undefined ? { name } : {}), ...(update.url !== undefined ? { url: update.url.trim() } : {}) };
    if (Object.keys(fields).length > 0) await Integration.query(trx).findById(id).patch(fields);
    await applySecretChanges(trx, cipher, id, changes);
    // WDATA-6: an answer fetched with the old address or credentials is not served after the change.
    if (update.url !== undefined || changes.length > 0) await WidgetDataCache.query(trx).where({ integrationId: id }).delete();
  });
}

/**
 * DELETE: full access; bindings (integration_items), grants and secrets go by cascade. Boards that had an item
 * bound to it change (their items lose the id): each is locked (its internal revision moves, its version does not)
 * and the change enters its history.
 */
export async function deleteIntegration(db: Db, principal: Principal, id: string, history: HistoryContext): Promise<void> {
  await db.transaction(async (trx) => {
    await assertIntegrationFullAccess(trx, principal, id);
    await recordIntegrationUnbound(trx, id, principal, history);
    await Integration.query(trx).deleteById(id);
  });
}
