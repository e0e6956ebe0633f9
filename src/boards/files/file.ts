/**
 * Board files (FILE-1..7): a board as a portable, self-contained file, and back. Layouts are named instead of
 * identified, positions are keyed by layout name, an app widget names its app by its fields and bindings name their
 * integration, so a file taken from one instance applies to another. No I/O: exportBoard.ts and importBoard.ts read
 * what these functions need to know.
 */
import type { components } from '../../../generated/api';
import { badRequest } from '../../core/errors';
import { normalizeNewApp, type AppFields } from '../../apps/validation';
import { assertBoardSettings, boardSettingsColumns, defaultBoardSettings } from '../settings';
import { appOptions } from '../../widgets/options';
import { toBoardDocument, type BoardState } from '../document/model';
import type { BoardContent, BoardItemInput, BoardSectionInput, LayoutRow } from '../document/types';
import { listIds, validateContent } from '../document/validate';

type Schemas = components['schemas'];
export type BoardFile = Schemas['BoardFile'];
export type FileItem = Schemas['FileItem'];
export type FileSection = Schemas['FileSection'];
export type FileIntegrationRef = Schemas['FileIntegrationRef'];
export type FileAppRef = Schemas['FileAppRef'];

export const boardFileApiVersion = 'tessera/v1';

/** What an export needs to know beyond the board: where it is, and the apps and integrations it names. */
export interface ExportFacts {
  instanceId: string;
  revision: number | null;
  exportedAt: string;
  /** Apps named by the board's widgets (FILE-8) that the caller may read, by id. */
  apps: ReadonlyMap<string, AppFields>;
  /** Integrations bound on the board that the caller can see, by id (others are exported by id alone). */
  integrations: ReadonlyMap<string, FileIntegrationRef>;
}

const maxLayoutName = 32;

/**
 * Names of the board's layouts for a file, in breakpoint order. Names are not unique on a board; a repeated name
 * gets `~2`, `~3`, … so that positions still say which layout they are on (FILE-1).
 */
export function layoutNames(layouts: readonly LayoutRow[]): Map<string, string> {
  const names = new Map<string, string>();
  const used = new Set<string>();
  for (const layout of layouts) {
    let name = layout.name;
    for (let n = 2; used.has(name); n++) name = `${layout.name.slice(0, maxLayoutName - `~${n}`.length)}~${n}`;
    used.add(name);
    names.set(layout.id, name);
  }
  return names;
}

/** FILE-1: the board file of a board as the caller reads it. */
export function toBoardFile(state: BoardState, facts: ExportFacts): BoardFile {
  const document = toBoardDocument(state);
  const names = layoutNames(state.layouts);
  const layoutName = (id: string) => names.get(id)!;
  const settings: Record<string, unknown> = {};
  for (const column of boardSettingsColumns) settings[column] = state.board[column];
  const bindings = new Map<string, string[]>();
  for (const binding of state.bindings) bindings.set(binding.itemId, [...(bindings.get(binding.itemId) ?? []), binding.integrationId]);

  return {
    apiVersion: boardFileApiVersion,
    kind: 'Board',
    source: { instance: facts.instanceId, boardId: state.board.id, version: state.board.version, revision: facts.revision, exportedAt: facts.exportedAt },
    name: state.board.name,
    isPublic: state.board.isPublic,
    managedBy: state.board.managedBy ?? null,
    settings: settings as BoardFile['settings'],
    layouts: state.layouts.map((layout) => ({ name: layoutName(layout.id), columnCount: layout.columnCount, breakpoint: layout.breakpoint })),
    sections: document.sections.map((section): FileSection => {
      switch (section.kind) {
        case 'category':
          return { id: section.id, kind: 'category', name: section.name, xOffset: section.xOffset, yOffset: section.yOffset };
        case 'empty':
          return { id: section.id, kind: 'empty', xOffset: section.xOffset, yOffset: section.yOffset };
        case 'dynamic':
          return {
            id: section.id,
            kind: 'dynamic',
            options: section.options,
            layouts: section.layouts.map(({ layoutId, ...position }) => ({ layout: layoutName(layoutId), ...position })),
          };
      }
    }),
    items: document.items.map((item): FileItem => {
      const file: FileItem = { id: item.id, kind: item.kind, ...fileAppFields(item, facts.apps), advancedOptions: item.advancedOptions, layouts: [] };
      const bound = bindings.get(item.id) ?? [];
      if (bound.length > 0) file.integrations = bound.map((id): FileIntegrationRef => facts.integrations.get(id) ?? { id });
      file.layouts = item.layouts.map(({ layoutId, ...position }) => ({ layout: layoutName(layoutId), ...position }));
      return file;
    }),
  };
}

const fileApp = (app: AppFields): Schemas['FileApp'] => ({ name: app.name, description: app.description, iconUrl: app.iconUrl, href: app.href, pingUrl: app.pingUrl });

/**
 * FILE-8: an item's options with the apps its options name (`appOptions`) taken out and named by their fields: an
 * app widget's `appId` in `app`, any other in `apps` under the option's name (a list entry the caller may not read
 * as `{id}`, in its place). A single app the caller may not read stays an id in the options.
 */
function fileAppFields(item: { kind: string; options: Record<string, unknown> }, apps: ReadonlyMap<string, AppFields>): Pick<FileItem, 'options' | 'app' | 'apps'> {
  const options = { ...item.options };
  const named: NonNullable<FileItem['apps']> = {};
  let app: FileItem['app'];
  for (const { name, list } of appOptions(item.kind)) {
    const value = options[name];
    if (list) {
      if (!Array.isArray(value) || value.length === 0 || !value.every((id): id is string => typeof id === 'string')) continue;
      named[name] = value.map((id): FileAppRef => {
        const fields = apps.get(id);
        return fields ? fileApp(fields) : { id };
      });
    } else {
      const fields = typeof value === 'string' ? apps.get(value) : undefined;
      if (!fields) continue;
      if (name === 'appId') app = fileApp(fields);
      else named[name] = fileApp(fields);
    }
    delete options[name];
  }
  return { options, ...(app ? { app } : {}), ...(Object.keys(named).length > 0 ? { apps: named } : {}) };
}

/** The ids a file gives its items and sections. */
export function fileElementIds(file: BoardFile): { itemIds: string[]; sectionIds: string[] } {
  return { itemIds: file.items.map((item) => item.id), sectionIds: file.sections.map((section) => section.id) };
}

/**
 * FILE-4: the file with the ids in `taken` replaced by the ids `mint` gives them, and every reference of the file to
 * them (positions' sections, dynamic sections' parents) following.
 */
export function remapIds(file: BoardFile, taken: ReadonlySet<string>, mint: (id: string) => string): BoardFile {
  if (taken.size === 0) return file;
  const sectionIds = new Map<string, string>();
  const section = (id: string) => sectionIds.get(id) ?? id;
  for (const s of file.sections) if (taken.has(s.id)) sectionIds.set(s.id, mint(s.id));
  return {
    ...file,
    sections: file.sections.map((s) => ({
      ...s,
      id: section(s.id),
      ...(s.layouts ? { layouts: s.layouts.map((p) => ({ ...p, parentSectionId: section(p.parentSectionId) })) } : {}),
    })),
    items: file.items.map((item) => ({
      ...item,
      id: taken.has(item.id) ? mint(item.id) : item.id,
      layouts: item.layouts.map((p) => ({ ...p, sectionId: section(p.sectionId) })),
    })),
  };
}

/** FILE-5: two layouts of one name, or positions on a layout the file does not define, are a 400. */
export function assertLayoutNames(file: BoardFile): void {
  const names = file.layouts.map((layout) => layout.name);
  const repeated = names.filter((name, i) => names.indexOf(name) !== i);
  if (repeated.length > 0) throw badRequest(`Layout names must be unique in a board file: ${listIds(repeated)}`, { layouts: [...new Set(repeated)] });
  const known = new Set(names);
  const used = [
    ...file.items.flatMap((item) => item.layouts.map((p) => p.layout)),
    ...file.sections.flatMap((section) => (section.layouts ?? []).map((p) => p.layout)),
  ];
  const unknown = used.filter((name) => !known.has(name));
  if (unknown.length > 0) throw badRequest(`Positions reference layouts the file does not define: ${listIds(unknown)}`, { layouts: [...new Set(unknown)] });
}

/**
 * FILE-5: the checks of a save's payload that need no database (PUT-14: duplicate ids, positions in sections the file
 * does not define, two positions on one layout, …), on the file as written, before any id is remapped.
 */
export function assertFileContent(file: BoardFile): void {
  assertLayoutNames(file);
  assertBoardSettings((file.settings ?? {}) as Record<string, unknown>, '/body/settings');
  const byName = new Map(file.layouts.map((layout) => [layout.name, layout.name]));
  validateContent(fileContent(file, { layoutIds: byName, integrationIds: new Map(), appOptions: new Map() }));
}

/** How an import resolved what a file names: layout ids by name, integration ids per item, app options per item. */
export interface FileResolution {
  layoutIds: ReadonlyMap<string, string>;
  integrationIds: ReadonlyMap<string, string[]>;
  /** The options naming apps, with this instance's app ids (`resolvedAppOptions`). */
  appOptions: ReadonlyMap<string, Record<string, unknown>>;
}

/**
 * The file's sections and items as a save's content (the PUT body's shape), with layouts, apps and integrations
 * resolved to this instance's ids. Category sections default to an empty name, offsets to 0.
 */
export function fileContent(file: BoardFile, resolution: FileResolution): BoardContent {
  const layoutId = (name: string) => resolution.layoutIds.get(name)!;
  const sections = file.sections.map((section): BoardSectionInput => {
    switch (section.kind) {
      case 'category':
        return { id: section.id, kind: 'category', name: section.name ?? '', xOffset: 0, yOffset: section.yOffset ?? 0, collapsed: false };
      case 'empty':
        return { id: section.id, kind: 'empty', xOffset: 0, yOffset: section.yOffset ?? 0 };
      default:
        return {
          id: section.id,
          kind: 'dynamic',
          options: section.options ?? {},
          layouts: (section.layouts ?? []).map(({ layout, ...position }) => ({ layoutId: layoutId(layout), ...position })),
        };
    }
  });
  const items = file.items.map((item): BoardItemInput => {
    return {
      id: item.id,
      kind: item.kind,
      options: { ...item.options, ...resolution.appOptions.get(item.id) },
      integrationIds: resolution.integrationIds.get(item.id) ?? [],
      advancedOptions: item.advancedOptions ?? {},
      layouts: item.layouts.map(({ layout, ...position }) => ({ layoutId: layoutId(layout), ...position })),
    };
  });
  return { sections, items };
}

/** The board fields a file sets: visibility, its source label (FLEET-1), and every setting (omitted ones at their defaults). */
export function fileBoardFields(file: BoardFile): Record<string, unknown> {
  const fields: Record<string, unknown> = { isPublic: file.isPublic ?? false, managedBy: file.managedBy ?? null };
  const settings = (file.settings ?? {}) as Record<string, unknown>;
  for (const column of boardSettingsColumns) fields[column] = settings[column] !== undefined ? settings[column] : defaultBoardSettings[column];
  return fields;
}

/** The settings of a new board (kept here under its old name for the file's readers). */
export { defaultBoardSettings };

/** The app references of a file item (FILE-8): `app` as the option `appId`, and each option of `apps`, with where they stand in the body. */
function itemAppRefs(item: FileItem, index: number): { option: string; value: FileAppRef | FileAppRef[]; at: string }[] {
  return [
    ...(item.app ? [{ option: 'appId', value: item.app, at: `/body/items/${index}/app` }] : []),
    ...Object.entries(item.apps ?? {}).map(([option, value]) => ({ option, value, at: `/body/items/${index}/apps/${option}` })),
  ];
}

/** The app dedupe key (APP-1: name and href) of a file's app reference given by fields, normalized as `POST /api/apps` does. */
function appKey(ref: Schemas['FileApp'], at?: string): { key: string; fields: AppFields } {
  const fields = normalizeNewApp(ref, at);
  return { key: JSON.stringify([fields.name, fields.href]), fields };
}

/**
 * The distinct apps a file names by their fields (FILE-5, FILE-8), by dedupe key, checked as `POST /api/apps` checks
 * them (APP-6: an issue names the field of the file it is about).
 */
export function fileApps(file: BoardFile): Map<string, AppFields> {
  const apps = new Map<string, AppFields>();
  for (const [index, item] of file.items.entries()) {
    for (const { value, at } of itemAppRefs(item, index)) {
      for (const [n, ref] of [value].flat().entries()) {
        if ('id' in ref) continue;
        const { key, fields } = appKey(ref, Array.isArray(value) ? `${at}/${n}` : at);
        if (!apps.has(key)) apps.set(key, fields);
      }
    }
  }
  return apps;
}

/** FILE-8: each item's options that name apps, with the app ids `appIds` (by dedupe key) resolved the file's apps to. */
export function resolvedAppOptions(file: BoardFile, appIds: ReadonlyMap<string, string>): Map<string, Record<string, unknown>> {
  const resolve = (ref: FileAppRef) => ('id' in ref ? ref.id : appIds.get(appKey(ref).key));
  const resolved = new Map<string, Record<string, unknown>>();
  for (const [index, item] of file.items.entries()) {
    const refs = itemAppRefs(item, index);
    if (refs.length > 0) resolved.set(item.id, Object.fromEntries(refs.map(({ option, value }) => [option, Array.isArray(value) ? value.map(resolve) : resolve(value)])));
  }
  return resolved;
}
