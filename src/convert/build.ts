/**
 * Board files from the converters' drafts (CONV-1, CONV-2): a draft names the board, its sections in order and the
 * items of each; this turns it into a `tessera/v1` board file with stable ids and synthesised positions per layout.
 */
import { createHash } from 'node:crypto';
import type { components } from '../../generated/api';
import { uniqueKeys } from './names';
import { autoFlow } from './placement';

type Schemas = components['schemas'];
export type BoardFile = Schemas['BoardFile'];
type FileItem = Schemas['FileItem'];
type FileSection = Schemas['FileSection'];
export type FileApp = Schemas['FileApp'];

export interface DraftLayout {
  name: string;
  columnCount: number;
  breakpoint: number;
}

export interface DraftItem {
  /** Unique within the board and stable across conversions of the same source: the item's id derives from it. */
  key: string;
  kind: string;
  options: Record<string, unknown>;
  app?: FileApp;
  width: number;
  height: number;
  /** CONV-14: an app tile, sized by the layout it is placed on (tileSize) instead of width and height. */
  tile?: boolean;
  /** Positions the source gave, by layout name (old Homarr). */
  fixed?: Record<string, { x: number; y: number; width?: number; height?: number }>;
}

export interface DraftSection {
  key: string;
  /** null: an uncategorized area (an empty section); the board's first section always is one. */
  name: string | null;
  /** CONV-15: how many app tiles a row the source shows in this group (null: the default, 4); see tileSize. */
  span?: number | null;
  /**
   * CONV-19: groups the source shows side by side share a key; a run of two or more consecutive sections with the
   * same key becomes one section holding a titled dynamic section per group. null or absent: a section of its own.
   */
  row?: string | null;
  items: DraftItem[];
}

export interface DraftBoard {
  name: string;
  /** Board settings of the file (FileSettings). */
  settings?: Record<string, unknown>;
  layouts?: DraftLayout[];
  sections: DraftSection[];
}

/** Desktop and mobile layouts of converted boards. */
export const defaultLayouts: DraftLayout[] = [
  { name: 'Mobile', columnCount: 4, breakpoint: 0 },
  { name: 'Desktop', columnCount: 12, breakpoint: 800 },
];

/** CONV-14: app tiles a row on a wide layout when the source gives no number. */
export const defaultTilesPerRow = 4;

/**
 * CONV-14, CONV-15: the width of an app tile on a layout of `columnCount` columns, and how far right a section's
 * items flow, for a group that shows `perRow` tiles a row. A layout under 8 columns (the phone's) keeps two tiles a
 * row; a wider one gives each tile at least 2 columns (room for icon, name and description), `perRow` a row where
 * that allows it.
 */
export function tileSize(columnCount: number, perRow?: number | null): { width: number; height: number; limit: number } {
  if (columnCount < 8) {
    const width = Math.max(1, Math.floor(columnCount / 2));
    return { width, height: 1, limit: columnCount };
  }
  const count = Math.min(Math.max(1, Math.floor(perRow ?? defaultTilesPerRow)), Math.floor(columnCount / 2));
  const width = Math.floor(columnCount / count);
  return { width, height: 1, limit: width * count };
}

/** A 24-character id derived from the board name and a key: the same source always gets the same ids. */
export function stableId(board: string, key: string): string {
  const digest = createHash('sha256').update(`${board}\0${key}`).digest();
  let id = '';
  for (let i = 0; i < 24; i++) id += 'abcdefghijklmnopqrstuvwxyz0123456789'[digest[i] % 36];
  return id;
}

/** A board name (letters, digits, `-`, `_`) from a title. */
export function boardNameOf(title: string, fallback: string): string {
  const name = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return name === '' ? fallback : name;
}

/** CONV-20: a dynamic section's title (at most 20 characters, DynamicSectionOptions), cut with an ellipsis. */
export function dynamicTitle(name: string): string {
  if (name.length <= 20) return name;
  let title = '';
  for (const char of name) {
    if (title.length + char.length > 19) break;
    title += char;
  }
  return `${title}\u2026`;
}

/** Sections in order; a run of two or more consecutive ones sharing a `row` key is one block (CONV-19). */
function blocksOf(sections: DraftSection[]): DraftSection[][] {
  const blocks: DraftSection[][] = [];
  for (const section of sections) {
    const last = blocks[blocks.length - 1];
    if (section.row && section.name !== null && last && last[0].row === section.row && last[0].name !== null) last.push(section);
    else blocks.push([section]);
  }
  return blocks;
}

/** CONV-20: columns of one group standing in a row of `count` on a layout: a third of 12 at least, all of a phone's. */
export function groupWidth(columnCount: number, count: number): { width: number; perRow: number } {
  if (columnCount < 8) return { width: columnCount, perRow: 1 };
  const perRow = Math.max(1, Math.min(count, Math.floor(columnCount / 4)));
  return { width: Math.floor(columnCount / perRow), perRow };
}

export function buildBoardFile(draft: DraftBoard): BoardFile {
  const layouts = draft.layouts ?? defaultLayouts;
  // The top area is always there (as on a new board), then the sections in source order.
  const ordered = draft.sections[0]?.name === null ? draft.sections : [{ key: 'top', name: null, items: [] }, ...draft.sections];
  const sectionIds = uniqueKeys(ordered.map((section) => section.key)).map((key) => stableId(draft.name, `section:${key}`));
  const idOf = new Map(ordered.map((section, index) => [section, sectionIds[index]]));
  const itemKeys = uniqueKeys(ordered.flatMap((section) => section.items.map((item) => item.key)));
  const itemKeyOf = new Map<DraftItem, string>();
  let nextKey = 0;
  for (const section of ordered) for (const item of section.items) itemKeyOf.set(item, itemKeys[nextKey++]);
  const sections: FileSection[] = [];
  const items: FileItem[] = [];
  /** The items of `section` flowed on a grid `columnsOf(layout)` wide per layout; the rows each layout takes. */
  const flow = (section: DraftSection, sectionId: string, columnsOf: (layout: DraftLayout, index: number) => number): number[] => {
    const perLayout = layouts.map((layout, layoutIndex) => {
      const columns = columnsOf(layout, layoutIndex);
      const tile = tileSize(columns, section.span);
      return autoFlow(
        columns,
        section.items.map((item) => {
          const fixed = item.fixed?.[layout.name];
          const size = item.tile ? tile : item;
          return { width: fixed?.width ?? size.width, height: fixed?.height ?? size.height, fixed: fixed ?? null };
        }),
        section.items.some((item) => item.tile) ? tile.limit : columns,
      );
    });
    section.items.forEach((item, itemIndex) => {
      items.push({
        id: stableId(draft.name, `item:${itemKeyOf.get(item)}`),
        kind: item.kind as FileItem['kind'],
        options: item.options,
        ...(item.app ? { app: item.app } : {}),
        layouts: layouts.map((layout, layoutIndex) => {
          const place = perLayout[layoutIndex][itemIndex];
          return { layout: layout.name, sectionId, xOffset: place.x, yOffset: place.y, width: place.width, height: place.height };
        }),
      });
    });
    return perLayout.map((places) => Math.max(0, ...places.map((p) => p.y + p.height)));
  };
  blocksOf(ordered).forEach((block, index) => {
    if (block.length === 1) {
      const [section] = block;
      const id = idOf.get(section)!;
      sections.push(section.name === null ? { id, kind: 'empty', xOffset: 0, yOffset: index } : { id, kind: 'category', name: section.name, xOffset: 0, yOffset: index });
      flow(section, id, (layout) => layout.columnCount);
      return;
    }
    // CONV-19, CONV-20: one section holds the row; each group a dynamic section titled with its name, one row taller
    // than its tiles for the title, side by side on a wide layout and one under another on a phone's.
    const parentId = stableId(draft.name, `row:${block[0].key}`);
    sections.push({ id: parentId, kind: 'empty', xOffset: 0, yOffset: index });
    const heights = block.map((section) => flow(section, idOf.get(section)!, (layout) => groupWidth(layout.columnCount, block.length).width).map((rows) => rows + 1));
    const places = layouts.map((layout, layoutIndex) => {
      const { width, perRow } = groupWidth(layout.columnCount, block.length);
      let top = 0;
      const placed: { x: number; y: number; width: number; height: number }[] = [];
      for (let start = 0; start < block.length; start += perRow) {
        const line = heights.slice(start, start + perRow).map((h) => h[layoutIndex]);
        line.forEach((height, i) => placed.push({ x: i * width, y: top, width, height }));
        top += Math.max(...line);
      }
      return placed;
    });
    block.forEach((section, i) =>
      sections.push({
        id: idOf.get(section)!,
        kind: 'dynamic',
        options: { title: dynamicTitle(section.name ?? '') },
        layouts: layouts.map((layout, layoutIndex) => {
          const p = places[layoutIndex][i];
          return { layout: layout.name, parentSectionId: parentId, xOffset: p.x, yOffset: p.y, width: p.width, height: p.height };
        }),
      }),
    );
  });
  return {
    apiVersion: 'tessera/v1',
    kind: 'Board',
    name: draft.name,
    isPublic: false,
    ...(draft.settings && Object.keys(draft.settings).length > 0 ? { settings: draft.settings as BoardFile['settings'] } : {}),
    layouts: layouts.map((layout) => ({ ...layout })),
    sections,
    items,
  };
}
