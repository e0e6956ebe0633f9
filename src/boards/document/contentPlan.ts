/**
 * The content plan of a whole-board save: `(stored board state, payload) -> plan`, no I/O. It decides, by the save
 * rules PUT-3..8, PUT-13 and PUT-15, which section, item, position and binding rows are inserted, updated and
 * deleted, and which parts of the payload the rules ignore (with the rule and the reason). The store (store.ts)
 * applies `writes`; what they change is compareStates (changes.ts) of the board before and after them.
 */
import type { BoardState } from './model';
import { isKnownWidgetKind } from '../../widgets/registry';
import { groupBy, normalizeAdvancedOptions, normalizeDynamicOptions, readableSections } from './model';
import type {
  BindingRow,
  BoardContent,
  BoardItemInput,
  BoardSectionInput,
  DynamicSectionOptions,
  ItemAdvancedOptions,
  ItemLayoutRow,
  SectionKind,
  SectionLayoutRow,
  SectionRow,
} from './types';

/** A section row as a save writes it. */
export interface SectionWrite {
  id: string;
  kind: SectionKind;
  xOffset: number | null;
  yOffset: number | null;
  name: string | null;
  options: DynamicSectionOptions | null;
}

/** An item row as a save writes it. */
export interface ItemWrite {
  id: string;
  kind: string;
  options: Record<string, unknown>;
  advancedOptions: ItemAdvancedOptions;
}

export type SectionPositionWrite = SectionLayoutRow & { parentSectionId: string };

export interface RowWrites<T> {
  insert: T[];
  update: T[];
  delete: string[];
}

/**
 * Every row a write changes. A save (PUT) updates a position only where one is stored for the element and layout
 * (PUT-5), never deletes one and never changes a section's kind; a restore or an import may do both.
 */
export interface ContentWrites {
  sections: RowWrites<SectionWrite>;
  sectionPositions: { insert: SectionPositionWrite[]; update: SectionPositionWrite[]; delete: { sectionId: string; layoutId: string }[] };
  items: RowWrites<ItemWrite>;
  itemPositions: { insert: ItemLayoutRow[]; update: ItemLayoutRow[]; delete: { itemId: string; layoutId: string }[] };
  /** Bindings of kept items only: removed items take theirs with them. */
  bindings: { insert: BindingRow[]; delete: BindingRow[] };
}

export type IgnoredRule = 'PUT-5' | 'PUT-6' | 'PUT-7' | 'PUT-8' | 'PUT-13';

/** A part of the payload the save does not write (or a stored element it keeps although the payload omits it). */
export interface IgnoredPart {
  rule: IgnoredRule;
  /** JSON pointer into the payload; null for stored elements the payload cannot name (PUT-13). */
  path: string | null;
  message: string;
}

export interface ContentPlan {
  writes: ContentWrites;
  ignored: IgnoredPart[];
  /** Ids the payload adds to the board's comparison set: they must not exist as rows anywhere (PUT-4). */
  newItemIds: string[];
  newSectionIds: string[];
  /** Every integration id the payload binds (BIND-6), and those not bound anywhere on the board yet (BIND-2). */
  integrationIds: string[];
  newlyBoundIntegrationIds: string[];
}

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

type Rect = { xOffset: number; yOffset: number; width: number; height: number };
const sameRect = (a: Rect, b: Rect) => a.xOffset === b.xOffset && a.yOffset === b.yOffset && a.width === b.width && a.height === b.height;

/** Rows by owner, then by layout: positions looked up without building a key per lookup. */
function byOwnerAndLayout<T extends { layoutId: string }>(rows: readonly T[], owner: (row: T) => string): Map<string, Map<string, T>> {
  const map = new Map<string, Map<string, T>>();
  for (const row of rows) {
    const id = owner(row);
    let layouts = map.get(id);
    if (!layouts) map.set(id, (layouts = new Map()));
    layouts.set(row.layoutId, row);
  }
  return map;
}

/** A new section as stored (PUT-7: xOffset of category and empty sections is 0; dynamic sections have no offsets). */
function newSection(payload: BoardSectionInput): SectionWrite {
  switch (payload.kind) {
    case 'category':
      return { id: payload.id, kind: 'category', xOffset: 0, yOffset: payload.yOffset, name: payload.name, options: null };
    case 'empty':
      return { id: payload.id, kind: 'empty', xOffset: 0, yOffset: payload.yOffset, name: null, options: null };
    case 'dynamic':
      return { id: payload.id, kind: 'dynamic', xOffset: null, yOffset: null, name: null, options: normalizeDynamicOptions(payload.options) };
  }
}

/** An existing section after a save: the stored kind decides what is written (PUT-6, PUT-7). */
function updatedSection(stored: SectionRow, payload: BoardSectionInput): SectionWrite {
  let { xOffset, yOffset, name } = stored;
  let options = stored.options as DynamicSectionOptions | null;
  if (stored.kind !== 'dynamic' && payload.kind !== 'dynamic') {
    yOffset = payload.yOffset;
    xOffset = 0;
  }
  if (stored.kind === 'category' && payload.kind === 'category') name = payload.name;
  if (stored.kind === 'empty') name = null;
  if (stored.kind === 'dynamic' && payload.kind === 'dynamic') options = normalizeDynamicOptions(payload.options);
  return { id: stored.id, kind: stored.kind as SectionKind, xOffset, yOffset, name, options };
}

function sectionRowChanged(stored: SectionRow, write: SectionWrite): boolean {
  return stored.xOffset !== write.xOffset || stored.yOffset !== write.yOffset || stored.name !== write.name || !sameJson(stored.options, write.options);
}

const itemWrite = (item: BoardItemInput): ItemWrite => ({
  id: item.id,
  kind: item.kind,
  options: item.options,
  advancedOptions: normalizeAdvancedOptions(item.advancedOptions),
});

/**
 * Plans a save of `content` over the stored board. The payload must have passed validateContent (unique ids,
 * positions naming sections of the payload and layouts of the board); the plan itself never throws.
 */
export function planContent(state: BoardState, content: BoardContent): ContentPlan {
  const plan = planElements(state, content, null);
  const payloadSectionIds = new Set(content.sections.map((section) => section.id));
  for (const section of readableSections(state)) {
    if (!payloadSectionIds.has(section.id)) plan.writes.sections.delete.push(section.id);
  }
  const payloadItemIds = new Set(content.items.map((item) => item.id));
  for (const row of state.items) {
    if (!isKnownWidgetKind(row.kind)) {
      plan.ignored.push({ rule: 'PUT-13', path: null, message: `Item ${row.id} of widget kind "${row.kind}", unknown to this server, is kept as stored` });
    } else if (!payloadItemIds.has(row.id)) plan.writes.items.delete.push(row.id);
  }
  return plan;
}

/** A change of some elements of a board (the granular routes, CONC-7): the rest of the board stays as stored. */
export interface ContentChange {
  /** Sections added or replaced, by id. */
  sections?: BoardSectionInput[];
  /** Items added or replaced, by id. */
  items?: BoardItemInput[];
  removedSectionIds?: string[];
  removedItemIds?: string[];
}

/**
 * Plans a change of some elements by the rules of a whole-board save (as if the payload were the stored board with
 * those elements replaced), looking only at the rows of the elements it names: its cost follows the change, not the
 * board. The elements must have passed the same checks as a payload.
 */
export function planContentChange(state: BoardState, change: ContentChange): ContentPlan {
  const sections = change.sections ?? [];
  const items = change.items ?? [];
  const owners = new Set([...sections.map((s) => s.id), ...items.map((i) => i.id)]);
  const plan = planElements(state, { sections, items }, owners);
  plan.writes.sections.delete.push(...(change.removedSectionIds ?? []));
  plan.writes.items.delete.push(...(change.removedItemIds ?? []));
  return plan;
}

/**
 * The writes for the sections and items of a payload against the stored rows (PUT-3..8, PUT-15), without removals.
 * `owners`, when given, limits the stored rows looked at to those of the elements named.
 */
function planElements(state: BoardState, content: BoardContent, owners: ReadonlySet<string> | null): ContentPlan {
  const among = <T>(rows: readonly T[], owner: (row: T) => string) => (owners === null ? rows : rows.filter((row) => owners.has(owner(row))));
  const storedSections = new Map(among(readableSections(state), (s) => s.id).map((section) => [section.id, section]));
  const storedItems = new Map(among(state.items, (i) => i.id).filter((item) => isKnownWidgetKind(item.kind)).map((item) => [item.id, item]));
  const storedItemPositions = byOwnerAndLayout(among(state.itemLayouts, (p) => p.itemId), (row) => row.itemId);
  const storedSectionPositions = byOwnerAndLayout(among(state.sectionLayouts, (p) => p.sectionId), (row) => row.sectionId);
  const storedBindings = groupBy(among(state.bindings, (b) => b.itemId), (b) => b.itemId);
  const boundOnBoard = new Set(state.bindings.map((b) => b.integrationId));

  const writes = emptyWrites();
  const newSectionIds: string[] = [];
  const newItemIds: string[] = [];
  const ignored: IgnoredPart[] = [];

  content.sections.forEach((section, index) => {
    const path = `/sections/${index}`;
    const stored = storedSections.get(section.id);
    if (section.kind !== 'dynamic' && section.xOffset !== 0) {
      ignored.push({ rule: 'PUT-7', path: `${path}/xOffset`, message: `xOffset of section ${section.id} is stored as 0: order category and empty sections with yOffset` });
    }
    if (section.kind === 'category' && section.collapsed !== state.collapsedSectionIds.has(section.id)) {
      ignored.push({ rule: 'PUT-8', path: `${path}/collapsed`, message: `collapsed of section ${section.id} is per-user state and is not written by a save` });
    }
    if (!stored) {
      writes.sections.insert.push(newSection(section));
      newSectionIds.push(section.id);
      if (section.kind === 'dynamic') {
        for (const p of section.layouts) writes.sectionPositions.insert.push({ sectionId: section.id, ...p });
      }
      return;
    }
    if (stored.kind !== section.kind) {
      ignored.push({
        rule: 'PUT-6',
        path: `${path}/kind`,
        message: `Section ${section.id} is stored as ${stored.kind}; a save never changes a section's kind (delete it and add a new one)`,
      });
    }
    const write = updatedSection(stored, section);
    if (sectionRowChanged(stored, write)) writes.sections.update.push(write);
    if (section.kind === 'dynamic' && stored.kind === 'dynamic') {
      section.layouts.forEach((p, positionIndex) => {
        const storedPosition = storedSectionPositions.get(section.id)?.get(p.layoutId);
        if (!storedPosition) {
          ignored.push({
            rule: 'PUT-5',
            path: `${path}/layouts/${positionIndex}`,
            message: `Section ${section.id} has no position in layout ${p.layoutId}: a save only updates existing positions`,
          });
        } else if (storedPosition.parentSectionId !== p.parentSectionId || !sameRect(storedPosition, p)) {
          writes.sectionPositions.update.push({ sectionId: section.id, ...p });
        }
      });
    }
  });

  const integrationIds = new Set<string>();
  const newlyBound = new Set<string>();
  content.items.forEach((item, index) => {
    const path = `/items/${index}`;
    const stored = storedItems.get(item.id);
    for (const integrationId of item.integrationIds) {
      integrationIds.add(integrationId);
      if (!boundOnBoard.has(integrationId)) newlyBound.add(integrationId);
    }
    const write = itemWrite(item);
    if (!stored) {
      writes.items.insert.push(write);
      for (const p of item.layouts) writes.itemPositions.insert.push({ itemId: item.id, ...p });
      for (const integrationId of new Set(item.integrationIds)) writes.bindings.insert.push({ itemId: item.id, integrationId });
      newItemIds.push(item.id);
      return;
    }
    if (stored.kind !== write.kind || !sameJson(stored.options, write.options) || !sameJson(stored.advancedOptions, write.advancedOptions)) {
      writes.items.update.push(write);
    }
    item.layouts.forEach((p, positionIndex) => {
      const storedPosition = storedItemPositions.get(item.id)?.get(p.layoutId);
      if (!storedPosition) {
        ignored.push({
          rule: 'PUT-5',
          path: `${path}/layouts/${positionIndex}`,
          message: `Item ${item.id} has no position in layout ${p.layoutId}: a save only updates an existing item's existing positions`,
        });
      } else if (storedPosition.sectionId !== p.sectionId || !sameRect(storedPosition, p)) {
        writes.itemPositions.update.push({ itemId: item.id, ...p });
      }
    });
    const bound = storedBindings.get(item.id);
    if (item.integrationIds.length === 0 && bound === undefined) return;
    const sent = new Set(item.integrationIds);
    for (const integrationId of sent) {
      if (!(bound ?? []).some((binding) => binding.integrationId === integrationId)) writes.bindings.insert.push({ itemId: item.id, integrationId });
    }
    for (const binding of bound ?? []) {
      if (!sent.has(binding.integrationId)) writes.bindings.delete.push(binding);
    }
  });

  return {
    writes,
    ignored,
    newItemIds,
    newSectionIds,
    integrationIds: [...integrationIds],
    newlyBoundIntegrationIds: [...newlyBound],
  };
}

/** Whether applying the writes changes any row. */
export function writesAnything(writes: ContentWrites): boolean {
  return (
    writes.sections.insert.length + writes.sections.update.length + writes.sections.delete.length > 0 ||
    writes.sectionPositions.insert.length + writes.sectionPositions.update.length + writes.sectionPositions.delete.length > 0 ||
    writes.items.insert.length + writes.items.update.length + writes.items.delete.length > 0 ||
    writes.itemPositions.insert.length + writes.itemPositions.update.length + writes.itemPositions.delete.length > 0 ||
    writes.bindings.insert.length + writes.bindings.delete.length > 0
  );
}

/** Writes that change nothing, for routes that build theirs row by row. */
export function emptyWrites(): ContentWrites {
  return {
    sections: { insert: [], update: [], delete: [] },
    sectionPositions: { insert: [], update: [], delete: [] },
    items: { insert: [], update: [], delete: [] },
    itemPositions: { insert: [], update: [], delete: [] },
    bindings: { insert: [], delete: [] },
  };
}
