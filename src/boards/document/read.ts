/**
 * Reading a board document (DOC-1..6): access, the instance's cache of serialized documents keyed on what the
 * database says on every request, and the snapshot load on a miss.
 */
import type { Knex } from 'knex';
import { emailReaderOf, maySeeEmailOf, type Principal } from '../../identity/principal';
import { assertBoardAccess } from '../access';
import { BoardDocumentCache, CachedDocument } from './cache';
import { BoardState, serializeState } from './model';
import type { BoardStateCache } from './stateCache';
import { BoardContentState, loadBoardSnapshot, loadCallerRows, loadCollapsedKey } from './store';
import type { BoardDocument } from './types';

/** The levels of the caller's own user and group rows, order-independent. */
export const ownRowsKey = (userLevels: string[], groupLevels: string[]) => `${userLevels.sort().join(',')}|${groupLevels.sort().join(',')}`;

/**
 * GET /api/boards/{id}: the serialized document and its ETag. Served from the instance's cache when the board's
 * current revision (read from the database on every request, with the access check) has been serialized for
 * the same creator, caller, caller's groups, collapsed sections and sight of the creator's e-mail (PRIV-1); otherwise loaded from one snapshot, once for
 * all the requests that miss the same key at the same time.
 */
export async function readBoardDocumentJson(
  db: Knex,
  cache: BoardDocumentCache,
  boardId: string,
  principal: Principal | null,
  states?: BoardStateCache,
): Promise<CachedDocument> {
  const access = await assertBoardAccess(db, boardId, principal, 'view');
  const userId = principal?.userId ?? null;
  // The caller's permission rows in the document change only with a board write (which moves the revision)
  // or with the caller's memberships, hence the group ids in the key.
  const groupIds = groupIdsKey(principal);
  const needsCollapsed = userId !== null && cache.hasCategorySections(boardId, access.revision) !== false;
  const key = BoardDocumentCache.key({
    boardId,
    revision: access.revision,
    creatorId: access.creatorId,
    userId,
    groupIds,
    ownRows: ownRowsKey([...access.userPermissions], [...access.groupPermissions]),
    collapsed: needsCollapsed ? await loadCollapsedKey(db, boardId, userId) : '',
    creatorEmail: maySeeEmailOf(emailReaderOf(principal), access.creatorId),
  });
  return cache.getOrBuild(key, async () => {
    const state = await loadStateForCache(db, boardId, principal, states?.get(boardId, access.revision));
    const entry = serializeDocument(state);
    cache.setCurrent(documentCacheKey(state, principal, entry.hasCategorySections), boardId, state.board.revision, entry);
    return entry;
  });
}

/**
 * The board from one snapshot (or from the rows of the state cache, when it holds the revision the access check
 * read, with the caller's own rows); what keys its document in the cache comes from it (it may be newer than the
 * request's access check).
 */
async function loadStateForCache(db: Knex, boardId: string, principal: Principal | null, cached: BoardContentState | undefined): Promise<BoardState> {
  return cached ? { ...cached, ...(await loadCallerRows(db, boardId, principal)) } : loadBoardSnapshot(db, boardId, principal);
}

/** The cache key of the document `state` makes for `principal` (the parts readBoardDocumentJson keys requests on). */
export function documentCacheKey(state: BoardState, principal: Principal | null, hasCategorySections: boolean): string {
  const userId = principal?.userId ?? null;
  return BoardDocumentCache.key({
    boardId: state.board.id,
    revision: state.board.revision,
    creatorId: state.board.creatorId,
    userId,
    groupIds: groupIdsKey(principal),
    ownRows: ownRowsKey(
      state.userPermissions.map((row) => row.permission),
      state.groupPermissions.map((row) => row.permission),
    ),
    collapsed: userId !== null && hasCategorySections ? [...state.collapsedSectionIds].sort().join(',') : '',
    creatorEmail: maySeeEmailOf(state.reader, state.board.creatorId),
  });
}

/** The caller's groups as a key part: the caller's permission rows in a document change with its memberships. */
const groupIdsKey = (principal: Principal | null) => (principal ? [...principal.groupIds].sort().join(',') : '');

/**
 * Puts the document a write answered into the cache, once the write committed, so the writer's next read is served
 * from it (the key is what that read will ask for).
 */
export function cacheWrittenDocument(cache: BoardDocumentCache, state: BoardState, principal: Principal, entry: CachedDocument): void {
  cache.setCurrent(documentCacheKey(state, principal, entry.hasCategorySections), state.board.id, state.board.revision, entry);
}

/** The document's UTF-8 bytes and ETag as the cache keeps them (model.ts serializeState). */
export function serializeDocument(state: BoardState): CachedDocument {
  const { parts, length, etag, hasCategorySections } = serializeState(state);
  return { parts, length, etag, hasCategorySections };
}
