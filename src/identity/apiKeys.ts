import type { Db } from '../db/database';
import { BatchedLookup, batchedLoad } from '../db/batchedLookup';
import { preparedStatement } from '../db/prepared';
import { randomBytes } from 'node:crypto';
import { badRequest, conflict, forbidden, notFound } from '../core/errors';
import { hashToken, newSecretToken, tokenMatchesHash } from './secrets';
import { expandPermissions, GlobalPermission, globalPermissions, sortedPermissions } from './permissions';
import { KeyBounds, loadPrincipal, Membership, membershipsJsonSql, principalFromMemberships } from './principal';
import type { Principal } from './principal';
import { Page, pageOfList, type PageRequest, type Position } from '../core/pages';
import { storableInstant } from '../core/instant';
import { ApiKey, GroupMember, User } from '../db/models';
import { mcpModes, type McpMode } from '../config/config';

export interface ApiKeyView {
  id: string;
  userId: string;
  name: string | null;
  scopes: GlobalPermission[] | null;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  /** KEY-7: the boards the key is limited to (null: not limited). */
  boardIds: string[] | null;
  /** KEY-9: the MCP mode the key narrows the server's to (null: the server's). */
  mcpMode: McpMode | null;
  /** KEY-10: the key applies its own MCP proposals without a person. */
  agentApprove: boolean;
}

const keyIdPattern = /^[A-Za-z0-9_-]{1,64}$/;
const tokenPattern = /^[A-Za-z0-9_-]{16,256}$/;

/** Splits `<id>.<token>`; null when the value does not have that shape. */
export function parseApiKey(value: string): { id: string; token: string } | null {
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const id = value.slice(0, dot);
  const token = value.slice(dot + 1);
  return keyIdPattern.test(id) && tokenPattern.test(token) ? { id, token } : null;
}

interface ApiKeyRow {
  id: string;
  userId: string;
  name: string | null;
  tokenHash: string;
  scopes: GlobalPermission[] | null;
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  boardIds: string[] | null;
  mcpMode: McpMode | null;
  agentApprove: boolean;
}

function toView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    userId: row.userId,
    name: row.name,
    scopes: row.scopes,
    expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
    boardIds: row.boardIds ?? null,
    mcpMode: row.mcpMode ?? null,
    agentApprove: row.agentApprove ?? false,
  };
}

export type KeyCheck =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'malformed' | 'invalid' }
  /** The key is genuine but expired: who it was, for the audit entry of its use (AUDIT-8). */
  | { ok: false; reason: 'expired'; key: { id: string; userId: string; username: string } };

/**
 * A lookup another part of the service asks to ride along with the key query, so that a request on one resource
 * makes one database round trip: the key, its owner's memberships and the owner's facts about that resource. Identity
 * knows nothing of the resource: `subquerySql` is fixed SQL text of a subquery returning at most one row about the
 * resource whose id is `asked.companion_id`, for the owner whose id is the SQL `ownerIdSql` and whose groups are the
 * `p.group_id` satisfying `ownerGroupMatchSql`. `name` names the lookup (and its prepared statement).
 */
export interface KeyCompanionLookup {
  name: string;
  subquerySql(ownerIdSql: string, ownerGroupMatchSql: string): string;
}

interface KeyQuestion {
  keyId: string;
  /** The resource the companion lookup reads, or null. */
  companionId: string | null;
}

interface KeyAnswer {
  key: Pick<ApiKeyRow, 'id' | 'userId' | 'tokenHash' | 'scopes' | 'expiresAt' | 'lastUsedAt' | 'boardIds' | 'mcpMode' | 'agentApprove'> & { username: string; memberships: Membership[] };
  companion: unknown;
}

/** The stored keys of the ids with their owners' memberships (and the companion's rows), in one query. */
function keysWithOwnersLoader(companion: KeyCompanionLookup | null) {
  const [keys, users] = [ApiKey.tableName, User.tableName];
  const ownGroups = `p.group_id IN (SELECT group_id FROM ${GroupMember.tableName} WHERE user_id = ${keys}.user_id)`;
  const [companionColumn, companionJoin] = companion
    ? ['to_json(companion)', `LEFT JOIN LATERAL (${companion.subquerySql(`${keys}.user_id`, ownGroups)}) AS companion ON true`]
    : ['NULL', ''];
  const statement = companion ? `tessera_api_keys_${companion.name}` : 'tessera_api_keys';
  return async (db: Db, questions: readonly KeyQuestion[]): Promise<(KeyAnswer | undefined)[]> => {
    const asked = JSON.stringify(questions.map((q, i) => ({ i, key_id: q.keyId, companion_id: q.companionId })));
    const { rows } = await db
      .raw<{ rows: (KeyAnswer['key'] & { i: number; companion: unknown })[] }>(
        `SELECT asked.i, ${keys}.id, ${keys}.user_id AS "userId", ${keys}.token_hash AS "tokenHash", ${keys}.scopes,
                ${keys}.expires_at AS "expiresAt", ${keys}.last_used_at AS "lastUsedAt", ${keys}.board_ids AS "boardIds",
                ${keys}.mcp_mode AS "mcpMode", ${keys}.agent_approve AS "agentApprove", ${users}.username,
                ${membershipsJsonSql(`${users}.id`)} AS memberships, ${companionColumn} AS companion
         FROM jsonb_to_recordset(?::jsonb) AS asked(i int, key_id text, companion_id text)
         JOIN ${keys} ON ${keys}.id = asked.key_id
         JOIN ${users} ON ${users}.id = ${keys}.user_id
         ${companionJoin}`,
        [asked],
      )
      .options(preparedStatement(statement));
    const answers: (KeyAnswer | undefined)[] = new Array(questions.length);
    for (const { i, companion: row, ...key } of rows) answers[i] = { key, companion: row ?? undefined };
    return answers;
  };
}

/** One batched lookup (and loader) per companion and database. */
const keyLookups = new Map<string, { load: ReturnType<typeof keysWithOwnersLoader>; batches: WeakMap<Db, BatchedLookup<KeyQuestion, KeyAnswer | undefined>> }>();

function keyLookupFor(companion: KeyCompanionLookup | null) {
  const name = companion?.name ?? '';
  let lookup = keyLookups.get(name);
  if (!lookup) {
    lookup = { load: keysWithOwnersLoader(companion), batches: new WeakMap() };
    keyLookups.set(name, lookup);
  }
  return lookup;
}

/**
 * Checks a presented `<id>.<token>` value against the stored hash, in constant time, and resolves the owner's
 * live groups and permissions in the same query (shared with the key checks of concurrent requests). With a
 * companion lookup and the id it is about, the owner's row of that lookup is read in the same query too and
 * carried on the principal (`companion`), for this request only.
 */
export async function verifyApiKey(
  db: Db,
  value: string,
  options: { companion?: { lookup: KeyCompanionLookup; id: string }; now?: Date } = {},
): Promise<KeyCheck> {
  const now = options.now ?? new Date();
  const parsed = parseApiKey(value);
  if (!parsed) return { ok: false, reason: 'malformed' };
  const companion = options.companion ?? null;
  const lookup = keyLookupFor(companion?.lookup ?? null);
  const answer = await batchedLoad(lookup.batches, db, lookup.load, { keyId: parsed.id, companionId: companion?.id ?? null });
  const key = answer?.key;
  // Hash even on a miss so that an unknown id and a wrong token take the same time.
  const matches = tokenMatchesHash(parsed.token, key?.tokenHash ?? '0'.repeat(64));
  if (!key || !matches) return { ok: false, reason: 'invalid' };
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired', key: { id: key.id, userId: key.userId, username: key.username } };
  // Record use at most once a minute, to keep reads free of writes.
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > 60_000) {
    await ApiKey.query(db).findById(key.id).patch({ lastUsedAt: now });
  }
  const principal = principalFromMemberships({ id: key.userId, username: key.username }, key.memberships, {
    authMethod: 'apiKey',
    apiKeyId: key.id,
    scopes: key.scopes,
    expiresAt: key.expiresAt,
    ...keyReach(key),
  });
  if (companion !== null) principal.companion = { name: companion.lookup.name, id: companion.id, row: answer.companion };
  return { ok: true, principal };
}

/** KEY-7..KEY-10: what a stored key reaches beyond its scopes, as the principal carries it. */
const keyReach = (key: Pick<ApiKeyRow, 'boardIds' | 'mcpMode' | 'agentApprove'>) => ({
  boardIds: key.boardIds ?? null,
  mcpMode: key.mcpMode ?? null,
  agentApprove: key.agentApprove === true,
});

/**
 * AGENT-10: the caller a request with this key would be (its owner's live groups and permissions, narrowed by the
 * key's scopes), without its token: how an approved proposal runs as the key that proposed it. Null when the key is
 * gone (revoked), has expired, or its user is gone.
 */
export async function principalOfKey(db: Db, keyId: string, now = new Date()): Promise<Principal | null> {
  const key = await ApiKey.query(db).findById(keyId).select('id', 'userId', 'scopes', 'expiresAt', 'boardIds', 'mcpMode', 'agentApprove');
  if (!key || (key.expiresAt && new Date(key.expiresAt).getTime() <= now.getTime())) return null;
  const scopes = (key.scopes ?? null) as readonly GlobalPermission[] | null;
  return loadPrincipal(db, key.userId, { authMethod: 'apiKey', apiKeyId: key.id, scopes, expiresAt: key.expiresAt, ...keyReach(key as Pick<ApiKeyRow, 'boardIds' | 'mcpMode' | 'agentApprove'>) });
}

export interface NewApiKey {
  userId: string;
  name?: string | null;
  scopes?: readonly GlobalPermission[] | null;
  expiresAt?: string | null;
  boardIds?: readonly string[] | null;
  mcpMode?: McpMode | null;
  agentApprove?: boolean;
  /** A full `<id>.<token>` value to store instead of a fresh one (bootstrap key). */
  presetValue?: string;
}

/**
 * A requested expiry as it will be stored (TIME-1: a leap second, and an instant past the year 9999 kept as the end
 * of 9999, are expiries too); 400 when the text is no date-time.
 */
function expiryOf(text: string): Date {
  const instant = storableInstant(text);
  if (!instant) throw badRequest('expiresAt must be a date-time');
  return instant;
}

/** Inserts a key and returns its one-time plaintext value. */
export async function insertApiKey(db: Db, input: NewApiKey, now = new Date()): Promise<ApiKeyView & { apiKey: string }> {
  let id: string;
  let token: string;
  if (input.presetValue) {
    const parsed = parseApiKey(input.presetValue);
    if (!parsed) throw badRequest('API key must have the form <id>.<token> (id: 1-64 of A-Z a-z 0-9 _ -, token: 16-256 of the same)');
    ({ id, token } = parsed);
  } else {
    id = randomBytes(6).toString('hex');
    token = newSecretToken();
  }
  const expiresAt = input.expiresAt ? expiryOf(input.expiresAt) : null;
  if (expiresAt && expiresAt.getTime() <= now.getTime()) throw badRequest('expiresAt must lie in the future');
  const scopes = input.scopes ? sortedPermissions(new Set(input.scopes)) : null;
  // The insert's RETURNING rows say whether it inserted: objection's insert answers the given row either way.
  const [row]: ApiKeyRow[] = await ApiKey.table(db)
    .insert({
      id,
      userId: input.userId,
      name: input.name ?? null,
      tokenHash: hashToken(token),
      scopes: scopes === null ? null : JSON.stringify(scopes),
      expiresAt,
      boardIds: input.boardIds ? JSON.stringify([...new Set(input.boardIds)]) : null,
      mcpMode: input.mcpMode ?? null,
      agentApprove: input.agentApprove ?? false,
    })
    .onConflict('id')
    .ignore()
    .returning('*');
  if (!row) throw conflict('An API key with this id already exists');
  return { ...toView(row), apiKey: `${id}.${token}` };
}

/**
 * The scopes of `scopes` (null = every permission) that a key with these bounds does not hold. A key's scopes are
 * compared, expanded, not its effective permissions: the comparison then stays true whatever the owners' groups become.
 */
function scopesBeyond(scopes: readonly GlobalPermission[] | null, bounds: KeyBounds): GlobalPermission[] {
  if (bounds.scopes === null) return [];
  const held = expandPermissions(bounds.scopes);
  // `held` contains everything its members imply, so checking each scope itself is enough.
  return (scopes ?? globalPermissions).filter((scope) => !held.has(scope));
}

const expiresLater = (expiresAt: Date | null, bounds: KeyBounds) =>
  bounds.expiresAt !== null && (expiresAt === null || expiresAt.getTime() > bounds.expiresAt.getTime());

/**
 * The rule for keys a caller may manage (list, revoke): those holding no more than the caller. A session holds all of
 * its user's rights; an API key holds its scopes until its expiry, so a key it manages must have scopes within its
 * own and expire no later.
 */
export function holdsNoMoreThanCaller(caller: Principal, key: KeyBounds): boolean {
  const bounds = caller.keyBounds;
  return (
    !bounds ||
    (scopesBeyond(key.scopes, bounds).length === 0 &&
      !expiresLater(key.expiresAt, bounds) &&
      boardsBeyond(key.boardIds ?? null, bounds).length === 0 &&
      !widerMode(key.mcpMode ?? null, bounds) &&
      !(key.agentApprove && !mayGiveAgentApprove(bounds)))
  );
}

/**
 * KEY-11: a key gives `agentApprove` only if it holds it, or holds no bound at all (no scopes, expiry, boards or mode:
 * like an unlimited key under KEY-5, it may mint any key of its user); a session always may.
 */
const mayGiveAgentApprove = (bounds: KeyBounds) =>
  bounds.agentApprove === true || (bounds.scopes === null && bounds.expiresAt === null && !bounds.boardIds && !bounds.mcpMode);

/** KEY-11: the boards of `boardIds` (null = every board) a key with these bounds is not limited to; ['*'] for "every board". */
function boardsBeyond(boardIds: readonly string[] | null, bounds: KeyBounds): string[] {
  const held = bounds.boardIds ?? null;
  if (held === null) return [];
  if (boardIds === null) return ['*'];
  return boardIds.filter((id) => !held.includes(id));
}

/** KEY-9, KEY-11: `read-only` < `propose` < `write`; a key without a mode has the server's, the widest it may have. */
const modeRank = (mode: McpMode | null) => (mode === null ? mcpModes.length : mcpModes.indexOf(mode));
const widerMode = (mode: McpMode | null, bounds: KeyBounds) => modeRank(mode) > modeRank(bounds.mcpMode ?? null);

/** KEY-9: the MCP mode of a key's caller: the narrower of the server's and the key's own. */
export function effectiveMcpMode(serverMode: McpMode, principal: Principal | null): McpMode {
  const own = principal?.keyBounds?.mcpMode ?? null;
  return own !== null && modeRank(own) < modeRank(serverMode) ? own : serverMode;
}

/**
 * The rule for keys a caller may mint: the scopes and expiry asked for, each defaulting to the calling key's own
 * (none for a session); 403 when the new key would hold more than the calling key.
 */
export function boundsOfNewKey(
  caller: Principal,
  requested: { scopes?: readonly GlobalPermission[] | null; expiresAt?: string | null; boardIds?: readonly string[] | null; mcpMode?: McpMode | null; agentApprove?: boolean },
): { scopes: readonly GlobalPermission[] | null; expiresAt: string | null; boardIds: readonly string[] | null; mcpMode: McpMode | null; agentApprove: boolean } {
  const bounds: KeyBounds = caller.keyBounds ?? { scopes: null, expiresAt: null };
  const scopes = requested.scopes ?? bounds.scopes;
  const expiresAt = requested.expiresAt ?? bounds.expiresAt?.toISOString() ?? null;
  // KEY-11: what the key reaches defaults to the calling key's, and holds no more.
  const boardIds = requested.boardIds ?? bounds.boardIds ?? null;
  const mcpMode = requested.mcpMode ?? bounds.mcpMode ?? null;
  const agentApprove = requested.agentApprove ?? bounds.agentApprove ?? false;
  const boardsOutside = boardsBeyond(boardIds, bounds);
  if (boardsOutside.length > 0) {
    throw forbidden('Permission denied: an API key cannot create a key for boards beyond its own', { boardIds: boardsOutside });
  }
  if (widerMode(mcpMode, bounds)) {
    throw forbidden('Permission denied: an API key cannot create a key with a wider MCP mode than its own', { mcpMode: bounds.mcpMode ?? null });
  }
  if (agentApprove && !mayGiveAgentApprove(bounds)) {
    throw forbidden('Permission denied: an API key cannot create a key that approves its own proposals');
  }
  const beyond = scopesBeyond(scopes, bounds);
  if (beyond.length > 0) {
    throw forbidden('Permission denied: an API key cannot create a key with scopes beyond its own', { scopes: beyond });
  }
  // Read as the stored expiry will be (a leap second is one: new Date() read it as no time, and no time was never
  // later than the calling key's expiry).
  if (expiresLater(expiresAt === null ? null : expiryOf(expiresAt), bounds)) {
    throw forbidden('Permission denied: an API key cannot create a key that expires later than itself', {
      expiresAt: bounds.expiresAt!.toISOString(),
    });
  }
  return { scopes, expiresAt, boardIds, mcpMode, agentApprove };
}

/**
 * A password never expires, so a caller whose key does will not create one (KEY-6): whoever holds the key would
 * keep a way in after it expired.
 */
export function assertMayCreatePassword(caller: Principal): void {
  const expiresAt = caller.keyBounds?.expiresAt ?? null;
  if (expiresAt !== null) {
    throw forbidden('Permission denied: an API key cannot create a credential that outlives itself', { expiresAt: expiresAt.toISOString() });
  }
}

/** A user's keys that the caller may manage (see holdsNoMoreThanCaller). */
/**
 * The keys of `userId` the caller may see (KEY-5), newest first, then by id; a page of them when asked (HTTP-8). A
 * user's keys are few, so the page is cut from the filtered list.
 */
export async function listApiKeys(db: Db, caller: Principal, userId: string, page: PageRequest = {}): Promise<Page<ApiKeyView>> {
  const rows = await ApiKey.query(db)
    .where({ userId })
    .select('*', db.raw('(extract(epoch from created_at) * 1000000)::bigint as created_micros'))
    .orderBy([{ column: 'createdAt', order: 'desc' }, 'id'])
    .castTo<(ApiKeyRow & { createdMicros: number })[]>();
  const visible = rows.filter((row) => holdsNoMoreThanCaller(caller, row));
  const newestFirst = (a: Position, b: Position) => (b[0] as number) - (a[0] as number) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
  const { items, nextCursor } = pageOfList(visible, page, ['number', 'string'], (row) => [row.createdMicros, row.id], newestFirst);
  return { items: items.map(toView), nextCursor };
}

/**
 * Own keys; admins may revoke anyone's. 404 otherwise, so key ids of others are not revealed; 403 for a key that
 * holds more than the calling key.
 */
export async function deleteApiKey(db: Db, caller: Principal, keyId: string): Promise<void> {
  await db.transaction(async (trx) => {
    const query = ApiKey.query(trx).findById(keyId).select('scopes', 'expiresAt', 'boardIds', 'mcpMode', 'agentApprove').forUpdate();
    if (!caller.permissions.has('admin')) query.andWhere({ userId: caller.userId });
    const key = await query.castTo<KeyBounds | undefined>();
    if (!key) throw notFound('API key not found');
    if (!holdsNoMoreThanCaller(caller, key)) {
      throw forbidden('Permission denied: an API key cannot revoke a key that holds more than itself');
    }
    await ApiKey.query(trx).deleteById(keyId);
  });
}

/** Who may create a key for whom: anyone for itself, admins for anyone. */
export function assertMayManageKeysOf(caller: Principal, userId: string): void {
  if (userId !== caller.userId && !caller.permissions.has('admin')) throw forbidden();
}
