/**
 * POST /api/boards/import (FILE-3..7): a board file becomes a new board, or is applied onto the board of its name,
 * in one transaction. A dry run does all of it, answers the plan and rolls back, so it answers exactly as the
 * import would.
 */
import type { Knex } from 'knex';
import { loadAppAccess } from '../../apps/access';
import { createOrReferenceApp } from '../../apps/apps';
import { recordAppPlacements } from '../../apps/placements';
import type { AppFields } from '../../apps/validation';
import { badRequest, conflict } from '../../core/errors';
import { derivedId, newId } from '../../db/ids';
import { readInstanceId } from '../../db/instance';
import { assertPermission, type Principal, boardInKeyScope } from '../../identity/principal';
import { usableIntegrationIds } from '../../integrations/access';
import { compareIntegrations } from '../../integrations/integrations';
import { whereAmong } from '../../db/idList';
import { assertBoardAccess } from '../access';
import { assertCanBind, assertIntegrationsExist } from '../document/bindings';
import { BoardChanges, compareStates } from '../document/changes';
import { planContent } from '../document/contentPlan';
import { readableItems, type BoardState } from '../document/model';
import { replacementFor, replacementWritesAnything, stateAfterReplacement } from '../document/replacement';
import { assertIdsFreeAmong, BoardCaches, inBoardTransaction, lockAndLoad, resultAfterWrite, RolledBack, unlessRolledBack } from '../document/save';
import { stateAfterContentWrites } from '../document/stateAfter';
import { applyReplacement, findExistingElementIds, type ExistingElement } from '../document/store';
import type { BoardContent, LayoutRow } from '../document/types';
import { listIds, validateContent } from '../document/validate';
import { contentWarnings, loadWarningFacts, PlanWarning } from '../document/warnings';
import type { HistoryContext } from '../history/record';
import { recordStateChange } from '../history/record';
import { latestOrigin } from '../history/store';
import { assertMayRelabel } from '../management/labels';
import { boardIdByName, nameConflictMessage, withNameConflictAs409 } from '../management/names';
import { boardSettingsColumns } from '../settings';
import { conflictSinceBase, type BoardConflict } from './baseConflict';
import { assertFileContent, BoardFile, fileApps, fileBoardFields, fileContent, fileElementIds, remapIds, resolvedAppOptions } from './file';
import { App, Board, Integration, User } from '../../db/models';

export type OnConflict = 'fail' | 'rename' | 'replace';

export interface ImportOptions {
  principal: Principal;
  file: BoardFile;
  onConflict: OnConflict;
  dryRun: boolean;
  history: HistoryContext;
  caches?: BoardCaches;
}

export interface ImportPlan {
  action: 'create' | 'replace';
  boardId: string | null;
  name: string;
  version: number | null;
  changes: BoardChanges;
  ignored: never[];
  warnings: PlanWarning[];
}

export type ImportOutcome =
  | { kind: 'created' | 'replaced' | 'unchanged'; boardId: string; name: string }
  | { kind: 'plan'; plan: ImportPlan };

/** The board fields an import writes: name, visibility and every setting. */
const importedColumns = ['name', 'isPublic', 'managedBy', ...boardSettingsColumns] as const;

const maxNameLength = 255;

/** The name of the `n`th candidate of a rename: the name itself, then `<name>-2`, `<name>-3`, … within 255 characters. */
function candidateName(name: string, n: number): string {
  if (n === 1) return name;
  const suffix = `-${n}`;
  return `${name.slice(0, maxNameLength - suffix.length)}${suffix}`;
}

/** Bound on the names a rename tries after losing each to a concurrent create. */
const maxRenameAttempts = 50;

/**
 * Inserts a new board named `name`; with FILE-3 `rename`, under the first of `<name>`, `<name>-2`, … that no board has
 * (letter case ignored). The unique index on lower(name) decides: the insert does nothing when the name was taken
 * meanwhile (by a concurrent import, which it waits for), and the next free name is tried, a bounded number of times.
 * Without `rename` a taken name is the index's violation (409).
 */
async function insertBoard(trx: Knex, row: { id: string; isPublic: boolean; creatorId: string }, name: string, rename: boolean): Promise<string> {
  if (!rename) {
    await Board.query(trx).insert({ ...row, name });
    return name;
  }
  let n = 1;
  for (let attempt = 0; attempt < maxRenameAttempts; attempt++, n++) {
    while ((await boardIdByName(trx, candidateName(name, n))) !== undefined) n++;
    const inserted: unknown[] = await Board.table(trx).insert({ ...row, name: candidateName(name, n) }).onConflict().ignore().returning('id');
    if (inserted.length > 0) return candidateName(name, n);
  }
  throw conflict(nameConflictMessage);
}

/**
 * FILE-5: integrations named by name and kind, among every integration of the instance (one the caller may use first,
 * then one the board already binds, then by the listing's order); by id, integrations that exist. 400 `Unknown
 * integrations: <name (kind)>` for names no integration has; one the caller may not use is the binding rule's 403
 * (BIND-2, checked by the caller of this function), not an unknown name.
 */
async function resolveIntegrations(trx: Knex, principal: Principal, file: BoardFile, boundOnBoard: ReadonlySet<string>): Promise<Map<string, string[]>> {
  const resolved = new Map<string, string[]>();
  const refs = file.items.flatMap((item) => item.integrations ?? []);
  if (refs.length === 0) return resolved;
  const names = [...new Set(refs.flatMap((ref) => ('name' in ref ? [ref.name] : [])))];
  const candidates: { id: string; name: string; kind: string }[] = names.length === 0 ? [] : await Integration.query(trx).modify(whereAmong, 'name', names).select('id', 'name', 'kind');
  const usable = await usableIntegrationIds(trx, principal, candidates.map((c) => c.id));
  const rank = (id: string) => (usable.has(id) ? 0 : boundOnBoard.has(id) ? 1 : 2);
  const byNameAndKind = new Map<string, string>();
  for (const entry of [...candidates].sort((a, b) => rank(a.id) - rank(b.id) || compareIntegrations(a, b))) {
    const key = `${entry.kind}\n${entry.name}`;
    if (!byNameAndKind.has(key)) byNameAndKind.set(key, entry.id);
  }
  const unknown: { name: string; kind: string }[] = [];
  const byId: string[] = [];
  for (const item of file.items) {
    const ids = (item.integrations ?? []).flatMap((ref) => {
      if ('id' in ref) return (byId.push(ref.id), [ref.id]);
      const id = byNameAndKind.get(`${ref.kind}\n${ref.name}`);
      if (id === undefined) unknown.push({ name: ref.name, kind: ref.kind });
      return id === undefined ? [] : [id];
    });
    if (ids.length > 0) resolved.set(item.id, [...new Set(ids)]);
  }
  if (unknown.length > 0) {
    const named = [...new Set(unknown.map((ref) => `${ref.name} (${ref.kind})`))];
    throw badRequest(`Unknown integrations: ${listIds(named)}`, { integrations: unknown.slice(0, 20) });
  }
  await assertIntegrationsExist(trx, byId);
  return resolved;
}

/**
 * FILE-5, FILE-8: the apps the file's widgets name by their fields, by the app dedupe rule (APP-1): an app with the
 * same name and href that the caller may use is taken as it is; any other is created or referenced as
 * `POST /api/apps` does (needs `app-create`). Answers each item's options that name apps, with these ids.
 */
async function resolveApps(trx: Knex, principal: Principal, file: BoardFile): Promise<Map<string, Record<string, unknown>>> {
  const appIds = new Map<string, string>();
  for (const [key, fields] of fileApps(file)) appIds.set(key, (await usableApp(trx, principal, fields)) ?? (await createApp(trx, principal, fields)));
  return resolvedAppOptions(file, appIds);
}

async function usableApp(trx: Knex, principal: Principal, fields: AppFields): Promise<string | undefined> {
  const existing: { id: string } | undefined = await App.query(trx)
    .where('name', fields.name)
    .modify((q) => (fields.href === null ? q.whereNull('href') : q.where('href', fields.href)))
    .select('id')
    .first();
  if (!existing) return undefined;
  return (await loadAppAccess(trx, principal, [existing.id])).get(existing.id)?.hasUseAccess ? existing.id : undefined;
}

async function createApp(trx: Knex, principal: Principal, fields: AppFields): Promise<string> {
  assertPermission(principal, 'app-create');
  const outcome = await createOrReferenceApp(trx, principal, fields);
  return outcome.referencedExisting ? outcome.appId : outcome.app.id;
}

/** Layout ids for the file's layouts: a layout of the board with the same name keeps its id (FILE-3). */
function fileLayouts(file: BoardFile, current: BoardState): LayoutRow[] {
  const unused = [...current.layouts];
  return file.layouts.map((layout) => {
    const i = unused.findIndex((existing) => existing.name === layout.name);
    const id = i >= 0 ? unused.splice(i, 1)[0].id : newId();
    return { id, boardId: current.board.id, name: layout.name, columnCount: layout.columnCount, breakpoint: layout.breakpoint };
  });
}

/**
 * The board a file makes of `current`: its fields, its layouts, and exactly its sections, items, positions and
 * bindings, as new elements of an empty board get them (PUT-3, PUT-5 for new elements). Items of kinds this build
 * does not know stay, as no save touches them (PUT-13).
 */
export function boardFromFile(current: BoardState, layouts: LayoutRow[], content: BoardContent, fields: Record<string, unknown>): BoardState {
  const shown = new Set(readableItems(current).map((item) => item.id));
  const hidden = current.items.filter((item) => !shown.has(item.id));
  const hiddenIds = new Set(hidden.map((item) => item.id));
  const start: BoardState = {
    ...current,
    board: { ...current.board, ...fields },
    layouts,
    sections: [],
    sectionLayouts: [],
    items: hidden,
    itemLayouts: current.itemLayouts.filter((p) => hiddenIds.has(p.itemId)),
    bindings: current.bindings.filter((b) => hiddenIds.has(b.itemId)),
  };
  return stateAfterContentWrites(start, planContent(start, content).writes);
}

/**
 * FLEET-9: in a set apply the repository is the truth, so a file's `source` (written by `boards export`) guards
 * only against another writer: when the board's newest history entry was written by a set of the same label and
 * holds its current version, nobody changed the board since the set wrote it and the source does not count.
 */
function lastWrittenBySet(latest: { version: number; origin: { managedBy: string | null } | null } | undefined, version: number, managedBy: string): boolean {
  return latest !== undefined && latest.version === version && latest.origin?.managedBy === managedBy;
}

/** The file's `source` guards a replace when it names this very board on this instance (FILE-6). */
function sourceGuard(file: BoardFile, instanceId: string, boardId: string): number | undefined {
  const source = file.source;
  return source && source.instance === instanceId && source.boardId === boardId ? source.version : undefined;
}

/**
 * PUT-4, FILE-4: the rows of these ids on any board. Those of the locked board `current` are its own rows (every
 * writer of a board holds its row lock, so they are exact): only the other ids are looked up.
 */
async function existingElements(
  trx: Knex,
  current: BoardState,
  ids: { itemIds: string[]; sectionIds: string[] },
  pending: readonly ExistingElement[] = [],
): Promise<ExistingElement[]> {
  const boardId = current.board.id;
  const own = { item: new Set(current.items.map((i) => i.id)), section: new Set(current.sections.map((s) => s.id)) };
  const itemIds = [...new Set(ids.itemIds)];
  const sectionIds = [...new Set(ids.sectionIds)];
  const onBoard = [
    ...itemIds.filter((id) => own.item.has(id)).map((id): ExistingElement => ({ id, boardId, element: 'item' })),
    ...sectionIds.filter((id) => own.section.has(id)).map((id): ExistingElement => ({ id, boardId, element: 'section' })),
  ];
  const elsewhere = await findExistingElementIds(trx, itemIds.filter((id) => !own.item.has(id)), sectionIds.filter((id) => !own.section.has(id)));
  const asked = { item: new Set(itemIds), section: new Set(sectionIds) };
  return [...onBoard, ...elsewhere, ...pending.filter((row) => asked[row.element].has(row.id))];
}

/**
 * FILE-7: the ids an import mints, each with the file's key for it: a new layout's name, and the file's id of an
 * element FILE-4 gave another id (`source` is the file as given, `file` after FILE-4).
 */
function mintedKeys(current: BoardState, layouts: readonly LayoutRow[], source: BoardFile, file: BoardFile): Map<string, string> {
  const keys = new Map<string, string>();
  const existing = new Set(current.layouts.map((layout) => layout.id));
  for (const layout of layouts) if (!existing.has(layout.id)) keys.set(layout.id, layout.name);
  for (const [i, section] of file.sections.entries()) if (section.id !== source.sections[i].id) keys.set(section.id, source.sections[i].id);
  for (const [i, item] of file.items.entries()) if (item.id !== source.items[i].id) keys.set(item.id, source.items[i].id);
  return keys;
}

/**
 * FILE-7: the plan with the minted ids `keys` names replaced by the file's keys, in its changes and its warnings.
 * Sections and items are listed in the order of their ids, as a board holds them: renamed, they are sorted again so
 * that the minted ids leave no trace in the order either (and the warnings by their path in the file); layouts keep
 * their order (breakpoints).
 */
export function withFileKeys(plan: ImportPlan, keys: ReadonlyMap<string, string>): ImportPlan {
  if (keys.size === 0) return plan;
  const key = (id: string) => keys.get(id) ?? id;
  const renamed = (ids: string[], sort: boolean) => (sort ? ids.map(key).sort() : ids.map(key));
  const elements = (changes: BoardChanges['items'], sort: boolean) => ({
    added: renamed(changes.added, sort),
    removed: renamed(changes.removed, sort),
    updated: renamed(changes.updated, sort),
  });
  const minted = new RegExp([...keys.keys()].join('|'), 'g');
  const text = (value: string) => value.replace(minted, key);
  return {
    ...plan,
    changes: { ...plan.changes, sections: elements(plan.changes.sections, true), items: elements(plan.changes.items, true), layouts: elements(plan.changes.layouts, false) },
    warnings: plan.warnings
      .map((warning) => ({ ...warning, path: text(warning.path), message: text(warning.message) }))
      .sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }) || a.code.localeCompare(b.code) || a.message.localeCompare(b.message)),
  };
}

/** One board file applied inside a caller's transaction: what it did, its plan, and the board it left. */
export interface ImportStep {
  outcome: { kind: 'created' | 'replaced' | 'unchanged'; boardId: string; name: string };
  plan: ImportPlan;
  /** Whether the file changes anything (a create always does). */
  changed: boolean;
  after: BoardState;
  /** A create planned but not written (UnwrittenCreates): the rows its sections and items would be. */
  unwritten?: ExistingElement[];
  /**
   * FLEET-16: another writer changed the board since the file's base. Without `force` nothing was written (the set
   * refuses, or plans a conflict); with it, the file was applied over those changes.
   */
  conflict?: BoardConflict;
}

/**
 * A set's dry run (FLEET-2) plans a new board without writing its content: of what a create writes, only its
 * elements' ids can change what a later file of the set plans (FILE-4 and PUT-4 look ids up on every board), so the
 * set hands the ids of the creates it did not write to the files after them (`pending`), which count them as rows of
 * those boards. The board's row is still inserted (its defaults, its name).
 */
export interface UnwrittenCreates {
  pending: readonly ExistingElement[];
}

/**
 * FLEET-3: the label a set apply writes, checked against the board it replaces: a board another source manages is
 * a 409 naming that source; a board no source manages is taken over.
 */
export interface ImportOwner {
  managedBy: string;
  /**
   * FLEET-9: provisioning and its drift read the file's `source` not at all (the directory is the truth, another
   * writer's change is drift); a set apply reads it as FLEET-9 says.
   */
  ignoreSource?: boolean;
  /** FLEET-16: a board another writer changed since the file's base is overwritten rather than left as a conflict. */
  force?: boolean;
}

/**
 * The body of an import inside the transaction `trx` (FILE-3..7): looks the board up by the file's name, checks,
 * plans and, when `write` and the file changes anything, writes it and records history. It never rolls back by
 * itself: a caller that does not write, or whose file changes nothing, rolls `trx` back (the lock's revision bump
 * included). The single-file import and the set apply (FLEET-2) both run this; a set passes what its files share.
 */
export async function importInTransaction(
  trx: Knex.Transaction,
  options: Omit<ImportOptions, 'dryRun'> & {
    write: boolean;
    owner?: ImportOwner;
    /** This instance's id (FILE-6), when the caller read it. */
    instanceId?: string;
    /** The boards of the file names the caller looked up (a name not in it has no board). */
    boardIds?: ReadonlyMap<string, string>;
    unwritten?: UnwrittenCreates;
    /**
     * FILE-7, FLEET-2: the plan is answered and not written (a dry run): the ids the import mints (new layouts, the
     * ids FILE-4 gives foreign elements) are named in it by the file's keys (layout names, the file's ids), so that
     * planning the same file twice answers the same plan.
     */
    plannedOnly?: boolean;
  },
): Promise<ImportStep> {
  const { principal, onConflict } = options;
  const named = options.boardIds ? options.boardIds.get(options.file.name) : await boardIdByName(trx, options.file.name);
  // KEY-8: to a board-scoped key a board outside its boards does not exist (its name then only leads to the 403 of a create).
  const existingId = named !== undefined && boardInKeyScope(principal, named) ? named : undefined;
  if (existingId !== undefined && onConflict === 'fail') throw conflict(nameConflictMessage);
  const replace = existingId !== undefined && onConflict === 'replace';
  let boardId: string;
  let name = options.file.name;
  if (replace) {
    boardId = existingId;
    await assertBoardAccess(trx, boardId, principal, 'full');
  } else {
    assertPermission(principal, 'board-create');
    boardId = newId();
    name = await insertBoard(trx, { id: boardId, isPublic: false, creatorId: principal.userId }, name, onConflict === 'rename');
    await User.query(trx).where({ id: principal.userId }).whereNull('homeBoardId').patch({ homeBoardId: boardId });
  }
  const guard = replace && !options.owner?.ignoreSource ? sourceGuard(options.file, options.instanceId ?? (await readInstanceId(trx)), boardId) : undefined;
  // FLEET-9: a set's guard is decided under the lock, with the board's newest history entry.
  const expectedVersion = options.owner ? undefined : guard;
  const current = await lockAndLoad(trx, boardId, principal, { bumpVersion: false, expectedVersion, caches: options.caches, inserted: !replace });
  // FLEET-9, FLEET-16: in a set, a board another writer moved since the file's base is a conflict the set decides on.
  const stale =
    options.owner && guard !== undefined && guard !== current.board.version && !lastWrittenBySet(await latestOrigin(trx, boardId), current.board.version, options.owner.managedBy);
  const owner = current.board.managedBy ?? null;
  if (replace && options.owner && owner !== null && owner !== options.owner.managedBy) {
    throw conflict(`Board is managed by ${owner}`, { managedBy: owner });
  }
  const source = options.owner ? { ...options.file, managedBy: options.owner.managedBy } : options.file;
  // FLEET-14: a board created under a label, or moved onto or off one, needs the label's owner or an admin. A set
  // (options.owner) checked its label once for all its files, and FLEET-3 keeps its boards on it or on none.
  if (!options.owner) await assertMayRelabel(trx, { principal }, replace ? (current.board.managedBy ?? null) : null, source.managedBy ?? null);

  // FILE-4: ids used on another board are replaced by ids derived from this board's id and the file's id, so that
  // importing the same file again maps them to the same ids (and changes nothing).
  const taken = await existingElements(trx, current, fileElementIds(source), options.unwritten?.pending);
  const file = remapIds(source, new Set(taken.filter((row) => row.boardId !== boardId).map((row) => row.id)), (id) => derivedId(boardId, id));

  const layouts = fileLayouts(file, current);
  const content = fileContent(file, {
    layoutIds: new Map(layouts.map((layout) => [layout.name, layout.id])),
    integrationIds: await resolveIntegrations(trx, principal, file, new Set(current.bindings.map((b) => b.integrationId))),
    appOptions: await resolveApps(trx, principal, file),
  });
  validateContent(content);
  const target = boardFromFile(current, layouts, content, { ...fileBoardFields(file), name });
  const replacement = replacementFor(current, target, importedColumns);
  const changed = !replace || replacementWritesAnything(replacement);
  if (replace && changed) replacement.columns.version = current.board.version + 1;

  // PUT-4 for the elements new to the board, on the rows read above: nothing since wrote items or sections.
  const inserted = { item: new Set(replacement.content.items.insert.map((i) => i.id)), section: new Set(replacement.content.sections.insert.map((s) => s.id)) };
  assertIdsFreeAmong(taken.filter((row) => inserted[row.element].has(row.id)), boardId);
  await assertCanBind(trx, principal, target.bindings.map((b) => b.integrationId), new Set(current.bindings.map((b) => b.integrationId)));
  const computed = stateAfterReplacement(current, replacement);
  // LIMIT-1: a file that writes nothing leaves the board as it is, which no limit refuses (LIMIT-2).
  if (changed) resultAfterWrite(current, computed);

  const planned: ImportPlan = {
    action: replace ? 'replace' : 'create',
    boardId: replace ? boardId : null,
    name,
    version: replace ? current.board.version : null,
    changes: compareStates(replace ? current : { ...current, board: { ...current.board, name: '' } }, computed),
    ignored: [],
    warnings: contentWarnings(computed, content, await loadWarningFacts(trx, principal, content)),
  };
  // FILE-7: a plan that is not written names what the import would mint by the file's own keys.
  const plan = options.plannedOnly ? withFileKeys(planned, mintedKeys(current, layouts, source, file)) : planned;
  const outcome = { kind: replace ? (changed ? 'replaced' : 'unchanged') : 'created', boardId, name } as const;
  // FLEET-16: a file that leaves the board as it is puts nothing made on the server at stake.
  const baseConflict = stale && changed ? await conflictSinceBase(trx, current, { version: guard!, revision: options.file.source?.revision ?? null }, options.owner!.managedBy) : null;
  if (baseConflict && !options.owner!.force) return { outcome, plan, changed, after: current, conflict: baseConflict };
  const overwritten = baseConflict ? { conflict: baseConflict } : {};
  if (!options.write || !changed) return { outcome, plan, changed, after: current, ...overwritten };
  if (!replace && options.unwritten) {
    const unwritten = [
      ...replacement.content.items.insert.map((i): ExistingElement => ({ id: i.id, boardId, element: 'item' })),
      ...replacement.content.sections.insert.map((s): ExistingElement => ({ id: s.id, boardId, element: 'section' })),
    ];
    return { outcome, plan, changed, after: current, unwritten, ...overwritten };
  }
  const revision = await applyReplacement(trx, boardId, replacement, current.board.revision);
  const after = { ...computed, board: { ...computed.board, revision } };
  await recordAppPlacements(trx, principal, [...replacement.content.items.insert, ...replacement.content.items.update]);
  await recordStateChange(trx, { principal, history: options.history, before: replace ? current : null, after });
  return { outcome, plan, changed, after, ...overwritten };
}

export async function importBoardFile(db: Knex, options: ImportOptions): Promise<ImportOutcome> {
  const { dryRun } = options;
  assertFileContent(options.file);
  return unlessRolledBack(() =>
    withNameConflictAs409(() =>
      inBoardTransaction(db, { caches: dryRun ? undefined : options.caches, principal: options.principal }, async (trx) => {
        const step = await importInTransaction(trx, { ...options, write: !dryRun, plannedOnly: dryRun });
        if (dryRun) throw new RolledBack<ImportOutcome>({ kind: 'plan', plan: step.plan });
        // FILE-3: nothing changes, so nothing is written: the lock's revision bump is rolled back too.
        if (!step.changed) throw new RolledBack<ImportOutcome>(step.outcome);
        return { result: step.outcome, after: step.after };
      }),
    ),
  );
}
