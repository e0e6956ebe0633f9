import type { Knex } from 'knex';
import { recordAppPlacements } from '../../apps/placements';
import { badRequest, conflict, notFound, preconditionFailed } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { assertBoardAccess } from '../access';
import { assertCanBind, assertIntegrationsExist } from './bindings';
import {
  BoardState,
  etagOf,
  ifMatchMatches,
  loadBoardState,
  normalizeAdvancedOptions,
  normalizeDynamicOptions,
  readableItems,
  readableSections,
  toBoardDocument,
} from './read';
import { assertWithinBoardLimits, measureBoard } from './limits';
import type { BoardContent, BoardDocument, BoardSectionInput, SectionRow } from './types';
import { listIds, shownIds, unknownLayoutIds, validateContent } from './validate';
import { whereAmong } from '../../db/idList';

export const versionConflictMessage = 'This board was modified by another request. Reload the latest board and retry.';
export const etagMismatchMessage = 'Board has changed since the ETag was issued';

export interface DocumentResult {
  document: BoardDocument;
  etag: string;
}

/**
 * The first statement of every board write: bumps the internal revision (and the version when the version
 * table says so), which takes the board's row lock for the rest of the transaction. With expectedVersion the
 * update is guarded (`AND version = ?`) and the decision rests on the matched-row count only: 0 rows is the
 * spec's 409. The database decides races between instances.
 */
export async function lockBoardForWrite(
  trx: Knex.Transaction,
  boardId: string,
  options: { bumpVersion: boolean; expectedVersion?: number },
): Promise<void> {
  const changes: Record<string, unknown> = { revision: trx.raw('revision + 1'), updatedAt: trx.fn.now() };
  if (options.bumpVersion) changes.version = trx.raw('version + 1');
  const query = trx('boards').where({ id: boardId });
  if (options.expectedVersion !== undefined) query.andWhere('version', options.expectedVersion);
  const matched = await query.update(changes);
  if (matched === 0) throw options.expectedVersion !== undefined ? conflict(versionConflictMessage) : notFound('Board not found');
}

/**
 * Reads the locked board inside the write transaction and, when the request carries If-Match, compares it with
 * the ETag of the document as this caller saw it before this write (412, nothing written, on mismatch).
 */
export async function loadLockedState(
  trx: Knex.Transaction,
  boardId: string,
  principal: Principal,
  options: { ifMatch?: string; versionBumped: boolean },
): Promise<BoardState> {
  const state = await loadBoardState(trx, boardId, principal);
  if (!state) throw notFound('Board not found');
  if (options.ifMatch !== undefined) {
    const before = { ...state, board: { ...state.board, version: state.board.version - (options.versionBumped ? 1 : 0) } };
    if (!ifMatchMatches(options.ifMatch, etagOf(toBoardDocument(before)))) throw preconditionFailed(etagMismatchMessage);
  }
  return state;
}

/**
 * The board as it stands after a write, inside the write's transaction: 400 (rolling the write back) when the
 * write took it past a board limit, measured against `before`, the state the write started from.
 */
export async function freshRead(q: Knex, boardId: string, principal: Principal, before: BoardState): Promise<DocumentResult> {
  const state = await loadBoardState(q, boardId, principal);
  if (!state) throw notFound('Board not found');
  const document = toBoardDocument(state);
  assertWithinBoardLimits(measureBoard(document), () => measureBoard(toBoardDocument(before)));
  return documentResult(document);
}

function documentResult(document: BoardDocument): DocumentResult {
  return { document, etag: etagOf(document) };
}

export interface SaveContentOptions {
  boardId: string;
  principal: Principal;
  content: BoardContent;
  expectedVersion?: number;
  ifMatch?: string;
}

/**
 * PUT /api/boards/{id} (and every granular item/section route): full replacement of sections and items in one
 * transaction, guarded version increment first, then the checks against the stored board, then the diff, then
 * a fresh read. A fixed number of statements whatever the board's size.
 */
export async function saveBoardContent(db: Knex, options: SaveContentOptions): Promise<DocumentResult> {
  const { boardId, principal, content } = options;
  await assertBoardAccess(db, boardId, principal, 'modify');
  validateContent(content);
  return db.transaction(async (trx) => {
    await lockBoardForWrite(trx, boardId, { bumpVersion: true, expectedVersion: options.expectedVersion });
    const state = await loadLockedState(trx, boardId, principal, { ifMatch: options.ifMatch, versionBumped: true });
    await checkAgainstBoard(trx, state, content, principal);
    const wrote = await applyContent(trx, state, content, principal);
    // Nothing but the version bump written: the state read after the bump is the board as it now stands.
    if (!wrote) return documentResult(toBoardDocument(state));
    return freshRead(trx, boardId, principal, state);
  });
}

async function checkAgainstBoard(trx: Knex.Transaction, state: BoardState, content: BoardContent, principal: Principal): Promise<void> {
  const missingLayouts = unknownLayoutIds(content, new Set(state.layouts.map((layout) => layout.id)));
  if (missingLayouts.length > 0) {
    throw badRequest(`Positions reference layouts not on this board: ${listIds(missingLayouts)}`, { layoutIds: missingLayouts });
  }

  const requestedIntegrations = content.items.flatMap((item) => item.integrationIds);
  if (requestedIntegrations.length > 0) await assertIntegrationsExist(trx, requestedIntegrations);

  // Ids that are new to this board's comparison set but exist as rows: on another board, or hidden rows here.
  const knownItems = new Set(readableItems(state).map((item) => item.id));
  const knownSections = new Set(readableSections(state).map((section) => section.id));
  const newItemIds = content.items.map((item) => item.id).filter((id) => !knownItems.has(id));
  const newSectionIds = content.sections.map((section) => section.id).filter((id) => !knownSections.has(id));
  if (newItemIds.length > 0 || newSectionIds.length > 0) await assertIdsFree(trx, state.board.id, newItemIds, newSectionIds);

  // BIND-2..4: only ids not yet bound anywhere on the board are checked.
  await assertCanBind(trx, principal, requestedIntegrations, new Set(state.bindings.map((binding) => binding.integrationId)));
}

/** 409 when ids new to the board's comparison set already exist as rows: on another board, or hidden rows here. */
async function assertIdsFree(trx: Knex.Transaction, boardId: string, newItemIds: string[], newSectionIds: string[]): Promise<void> {
  const taken: { id: string; boardId: string }[] = await trx
    .select('id', 'boardId')
    .from('items')
    .modify(whereAmong, 'id', newItemIds)
    .unionAll((union) => {
      union.select('id', 'boardId').from('sections').modify(whereAmong, 'id', newSectionIds);
    });
  const elsewhere = taken.filter((row) => row.boardId !== boardId).map((row) => row.id);
  if (elsewhere.length > 0) throw conflict(`Ids already used on another board: ${listIds(elsewhere)}`, { ids: shownIds(elsewhere), count: new Set(elsewhere).size });
  const hidden = taken.map((row) => row.id);
  if (hidden.length > 0) {
    throw conflict(`Ids already used by elements of this board that this server cannot read: ${listIds(hidden)}`, {
      ids: shownIds(hidden),
      count: new Set(hidden).size,
    });
  }
}

/** Stored values of an existing section after a save: the stored kind decides what is written (PUT-6, PUT-7). */
function updatedSection(stored: SectionRow, payload: BoardSectionInput) {
  let { xOffset, yOffset, name, options } = stored;
  if (stored.kind !== 'dynamic' && payload.kind !== 'dynamic') {
    yOffset = payload.yOffset;
    xOffset = 0;
  }
  if (stored.kind === 'category' && payload.kind === 'category') name = payload.name;
  if (stored.kind === 'empty') name = null;
  if (stored.kind === 'dynamic' && payload.kind === 'dynamic') options = normalizeDynamicOptions(payload.options);
  return { id: stored.id, x_offset: xOffset, y_offset: yOffset, name, options };
}

function newSection(payload: BoardSectionInput) {
  switch (payload.kind) {
    case 'category':
      return { id: payload.id, kind: 'category', x_offset: 0, y_offset: payload.yOffset, name: payload.name, options: null };
    case 'empty':
      return { id: payload.id, kind: 'empty', x_offset: 0, y_offset: payload.yOffset, name: null, options: null };
    case 'dynamic':
      return { id: payload.id, kind: 'dynamic', x_offset: null, y_offset: null, name: null, options: normalizeDynamicOptions(payload.options) };
  }
}

/** Rows handed to jsonb_to_recordset as one parameter, so a statement's text never depends on the row count. */
export const json = (rows: unknown[]) => JSON.stringify(rows);

/** The column list of a grid position in jsonb_to_recordset. */
export const positionColumns = 'x_offset int, y_offset int, width int, height int';

/** Equality of two JSON values as jsonb compares them: object keys in any order, arrays in order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((value, i) => sameJson(value, b[i]));
  if (Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  if (keysA.length !== Object.keys(b).length) return false;
  return keysA.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameJson((a as any)[key], (b as any)[key]));
}

type Position = { xOffset: number; yOffset: number; width: number; height: number };
const samePosition = (a: Position, b: Position) => a.xOffset === b.xOffset && a.yOffset === b.yOffset && a.width === b.width && a.height === b.height;

/**
 * The diff of PUT-3..8, PUT-13 and PUT-15, each kind of change as one statement (jsonb_to_recordset batches). Rows whose
 * stored values already equal what would be written are left alone, and a kind of change with no rows sends no
 * statement: an unchanged document writes nothing here. Returns whether anything was written.
 */
async function applyContent(trx: Knex.Transaction, state: BoardState, content: BoardContent, principal: Principal): Promise<boolean> {
  const boardId = state.board.id;
  const storedSections = new Map(readableSections(state).map((section) => [section.id, section]));
  const storedItems = new Map(readableItems(state).map((item) => [item.id, item]));
  const payloadSectionIds = new Set(content.sections.map((section) => section.id));
  const payloadItemIds = new Set(content.items.map((item) => item.id));
  const storedItemLayouts = new Map(state.itemLayouts.map((row) => [`${row.itemId}\n${row.layoutId}`, row]));
  const storedSectionLayouts = new Map(state.sectionLayouts.map((row) => [`${row.sectionId}\n${row.layoutId}`, row]));

  const addedSections = content.sections.filter((section) => !storedSections.has(section.id));
  const keptSections = content.sections.filter((section) => storedSections.has(section.id));
  const removedSectionIds = [...storedSections.keys()].filter((id) => !payloadSectionIds.has(id));
  const addedItems = content.items.filter((item) => !storedItems.has(item.id));
  const keptItems = content.items.filter((item) => storedItems.has(item.id));
  const removedItemIds = [...storedItems.keys()].filter((id) => !payloadItemIds.has(id));

  const storedPairs = new Set(state.bindings.map((b) => `${b.itemId}\n${b.integrationId}`));
  const payloadPairs = new Set(content.items.flatMap((item) => item.integrationIds.map((integrationId) => `${item.id}\n${integrationId}`)));
  const addedBindings = [...payloadPairs].filter((pair) => !storedPairs.has(pair));
  const removedBindings = state.bindings.filter(
    (b) => storedItems.has(b.itemId) && payloadItemIds.has(b.itemId) && !payloadPairs.has(`${b.itemId}\n${b.integrationId}`),
  );
  const pair = (key: string) => {
    const [item_id, integration_id] = key.split('\n');
    return { item_id, integration_id };
  };

  // Kept rows whose stored values differ from what the save writes.
  const updatedItems = keptItems
    .map((item) => ({ id: item.id, kind: item.kind, options: item.options, advanced_options: normalizeAdvancedOptions(item.advancedOptions) }))
    .filter((row) => {
      const stored = storedItems.get(row.id)!;
      return stored.kind !== row.kind || !sameJson(stored.options, row.options) || !sameJson(stored.advancedOptions, row.advanced_options);
    });
  const updatedItemPositions = keptItems
    .flatMap((item) => item.layouts.map((p) => ({ p, row: itemPositionRow(item.id, p) })))
    .filter(({ p, row }) => {
      const stored = storedItemLayouts.get(`${row.item_id}\n${row.layout_id}`);
      return stored !== undefined && (stored.sectionId !== p.sectionId || !samePosition(stored, p));
    })
    .map(({ row }) => row);
  const updatedSections = keptSections
    .map((section) => ({ stored: storedSections.get(section.id)!, row: updatedSection(storedSections.get(section.id)!, section) }))
    .filter(
      ({ stored, row }) => stored.xOffset !== row.x_offset || stored.yOffset !== row.y_offset || stored.name !== row.name || !sameJson(stored.options, row.options),
    )
    .map(({ row }) => row);
  const updatedSectionPositions = keptSections
    .flatMap((section) =>
      section.kind === 'dynamic' && storedSections.get(section.id)!.kind === 'dynamic' ? section.layouts.map((p) => ({ p, row: sectionPositionRow(section.id, p) })) : [],
    )
    .filter(({ p, row }) => {
      const stored = storedSectionLayouts.get(`${row.section_id}\n${row.layout_id}`);
      return stored !== undefined && (stored.parentSectionId !== p.parentSectionId || !samePosition(stored, p));
    })
    .map(({ row }) => row);

  let wrote = false;
  /** One statement for a batch of rows; nothing at all for an empty batch. */
  const batch = async (rows: unknown[], sql: string, bindings: (rowsJson: string) => Knex.RawBinding[]) => {
    if (rows.length === 0) return;
    wrote = true;
    await trx.raw(sql, bindings(json(rows)));
  };

  // Added sections, then the positions of added dynamic sections.
  await batch(
    addedSections.map(newSection),
    `INSERT INTO sections (id, board_id, kind, x_offset, y_offset, name, options)
     SELECT v.id, ?, v.kind, v.x_offset, v.y_offset, v.name, v.options
     FROM jsonb_to_recordset(?::jsonb) AS v(id text, kind text, x_offset int, y_offset int, name text, options jsonb)`,
    (rows) => [boardId, rows],
  );
  await batch(
    addedSections.flatMap((section) => (section.kind === 'dynamic' ? section.layouts.map((p) => sectionPositionRow(section.id, p)) : [])),
    `INSERT INTO section_layouts (section_id, layout_id, parent_section_id, x_offset, y_offset, width, height)
     SELECT v.section_id, v.layout_id, v.parent_section_id, v.x_offset, v.y_offset, v.width, v.height
     FROM jsonb_to_recordset(?::jsonb) AS v(section_id text, layout_id text, parent_section_id text, ${positionColumns})`,
    (rows) => [rows],
  );

  // Added items with exactly the positions supplied (PUT-5), and their bindings.
  await batch(
    addedItems.map((item) => ({ id: item.id, kind: item.kind, options: item.options, advanced_options: normalizeAdvancedOptions(item.advancedOptions) })),
    `INSERT INTO items (id, board_id, kind, options, advanced_options)
     SELECT v.id, ?, v.kind, v.options, v.advanced_options
     FROM jsonb_to_recordset(?::jsonb) AS v(id text, kind text, options jsonb, advanced_options jsonb)`,
    (rows) => [boardId, rows],
  );
  await batch(
    addedItems.flatMap((item) => item.layouts.map((p) => itemPositionRow(item.id, p))),
    `INSERT INTO item_layouts (item_id, layout_id, section_id, x_offset, y_offset, width, height)
     SELECT v.item_id, v.layout_id, v.section_id, v.x_offset, v.y_offset, v.width, v.height
     FROM jsonb_to_recordset(?::jsonb) AS v(item_id text, layout_id text, section_id text, ${positionColumns})`,
    (rows) => [rows],
  );
  await batch(
    addedBindings.map(pair),
    `INSERT INTO integration_items (item_id, integration_id)
     SELECT v.item_id, v.integration_id FROM jsonb_to_recordset(?::jsonb) AS v(item_id text, integration_id text)`,
    (rows) => [rows],
  );

  // Updated items: kind, options, advanced options; then only their existing positions (matched on item + layout).
  await batch(
    updatedItems,
    `UPDATE items AS i SET kind = v.kind, options = v.options, advanced_options = v.advanced_options
     FROM jsonb_to_recordset(?::jsonb) AS v(id text, kind text, options jsonb, advanced_options jsonb)
     WHERE i.id = v.id AND i.board_id = ?`,
    (rows) => [rows, boardId],
  );
  await recordAppPlacements(trx, principal, [...addedItems, ...updatedItems]);
  await batch(
    updatedItemPositions,
    `UPDATE item_layouts AS il
     SET section_id = v.section_id, x_offset = v.x_offset, y_offset = v.y_offset, width = v.width, height = v.height
     FROM jsonb_to_recordset(?::jsonb) AS v(item_id text, layout_id text, section_id text, ${positionColumns})
     WHERE il.item_id = v.item_id AND il.layout_id = v.layout_id`,
    (rows) => [rows],
  );

  // Updated sections (kind never changes) and the existing positions of dynamic ones.
  await batch(
    updatedSections,
    `UPDATE sections AS s SET x_offset = v.x_offset, y_offset = v.y_offset, name = v.name, options = v.options
     FROM jsonb_to_recordset(?::jsonb) AS v(id text, x_offset int, y_offset int, name text, options jsonb)
     WHERE s.id = v.id AND s.board_id = ?`,
    (rows) => [rows, boardId],
  );
  await batch(
    updatedSectionPositions,
    `UPDATE section_layouts AS sl
     SET parent_section_id = v.parent_section_id, x_offset = v.x_offset, y_offset = v.y_offset, width = v.width, height = v.height
     FROM jsonb_to_recordset(?::jsonb) AS v(section_id text, layout_id text, parent_section_id text, ${positionColumns})
     WHERE sl.section_id = v.section_id AND sl.layout_id = v.layout_id`,
    (rows) => [rows],
  );

  // Removals last: bindings of kept items, items (cascading positions and bindings), sections (cascading positions).
  await batch(
    removedBindings.map((b) => ({ item_id: b.itemId, integration_id: b.integrationId })),
    `DELETE FROM integration_items AS ii USING jsonb_to_recordset(?::jsonb) AS v(item_id text, integration_id text)
     WHERE ii.item_id = v.item_id AND ii.integration_id = v.integration_id`,
    (rows) => [rows],
  );
  if (removedItemIds.length > 0) {
    wrote = true;
    await trx('items').where({ boardId }).modify(whereAmong, 'id', removedItemIds).del();
  }
  if (removedSectionIds.length > 0) {
    wrote = true;
    await trx('sections').where({ boardId }).modify(whereAmong, 'id', removedSectionIds).del();
  }
  return wrote;
}

export function itemPositionRow(itemId: string, p: { layoutId: string; sectionId: string; xOffset: number; yOffset: number; width: number; height: number }) {
  return { item_id: itemId, layout_id: p.layoutId, section_id: p.sectionId, x_offset: p.xOffset, y_offset: p.yOffset, width: p.width, height: p.height };
}

export function sectionPositionRow(
  sectionId: string,
  p: { layoutId: string; parentSectionId: string; xOffset: number; yOffset: number; width: number; height: number },
) {
  return {
    section_id: sectionId,
    layout_id: p.layoutId,
    parent_section_id: p.parentSectionId,
    x_offset: p.xOffset,
    y_offset: p.yOffset,
    width: p.width,
    height: p.height,
  };
}

