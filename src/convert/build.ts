/**
 * Board files from the converters' drafts (CONV-1, CONV-2): a draft names the board, its sections in order and the
 * items of each; this turns it into a `tessera/v1` board file with stable ids and synthesised positions per layout.
 */
import { createHash } from 'node:crypto';
import type { components } from '../../generated/api';
import { uniqueKeys } from './names';
import { autoFlow, type Placement } from './placement';

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
  /**
   * CONV-21: the section is a row of columns (Glance's page columns): one empty section holding a dynamic section
   * per column, side by side on a wide layout and one under another on a phone's. Its own items are ignored.
   */
  columns?: DraftColumn[];
}

/** CONV-21: one column of a row of columns. */
export interface DraftColumn {
  key: string;
  /** A small column is a quarter of a wide layout; the full ones share the rest. */
  size: 'small' | 'full';
  /**
   * The column's contents, top to bottom: a part with a name is a titled dynamic section inside the column (a
   * bookmarks group, a monitor), one without (name null) has its items (widgets) placed in the column itself.
   */
  parts: DraftSection[];
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

/**
 * CONV-21: the widths of a row of columns on a layout of C columns: on a layout of 8 or more columns a small column
 * is floor(C / 4) wide and the full ones share the rest (the first ones one wider where it does not divide);
 * without a full column all share the width. On a narrower layout (the phone's) every column takes the whole width.
 */
export function columnWidths(columnCount: number, sizes: readonly ('small' | 'full')[]): number[] {
  if (columnCount < 8) return sizes.map(() => columnCount);
  const fulls = sizes.filter((size) => size === 'full').length;
  const small = fulls === 0 ? 0 : Math.floor(columnCount / 4);
  const shared = fulls === 0 ? sizes.length : fulls;
  const rest = columnCount - small * (sizes.length - fulls);
  let extra = rest - Math.floor(rest / shared) * shared;
  return sizes.map((size) => {
    if (fulls > 0 && size === 'small') return small;
    const width = Math.floor(rest / shared) + (extra > 0 ? 1 : 0);
    extra--;
    return width;
  });
}

/**
 * CONV-21: the app tiles of a column `width` columns wide on a layout of `columnCount` columns: on a wide layout 3
 * columns a tile as on a whole wide board (one a row in a small column of 3), on a phone's two a row (CONV-14).
 */
export function columnTile(columnCount: number, width: number, perRow?: number | null): ReturnType<typeof tileSize> {
  if (columnCount < 8) return tileSize(width);
  const count = Math.max(1, Math.min(perRow ?? Math.floor(width / 3), Math.floor(width / 2)));
  const tile = Math.floor(width / count);
  return { width: tile, height: 1, limit: tile * count };
}

export function buildBoardFile(draft: DraftBoard): BoardFile {
  const layouts = draft.layouts ?? defaultLayouts;
  // The top area is always there (as on a new board), then the sections in source order.
  const ordered = draft.sections[0]?.name === null ? draft.sections : [{ key: 'top', name: null, items: [] }, ...draft.sections];
  // CONV-21: the parts of a row's columns are sections too (their ids and their items' ids).
  const all = ordered.flatMap((section) => (section.columns ? [section, ...section.columns.flatMap((column) => column.parts)] : [section]));
  const sectionIds = uniqueKeys(all.map((section) => section.key)).map((key) => stableId(draft.name, `section:${key}`));
  const idOf = new Map(all.map((section, index) => [section, sectionIds[index]]));
  const itemKeys = uniqueKeys(all.flatMap((section) => (section.columns ? [] : section.items).map((item) => item.key)));
  const itemKeyOf = new Map<DraftItem, string>();
  let nextKey = 0;
  for (const section of all) for (const item of section.columns ? [] : section.items) itemKeyOf.set(item, itemKeys[nextKey++]);
  const sections: FileSection[] = [];
  const items: FileItem[] = [];
  /** The items of `section` flowed on a grid `columnsOf(layout)` wide per layout; the rows each layout takes. */
  const flow = (
    section: DraftSection,
    sectionId: string,
    columnsOf: (layout: DraftLayout, index: number) => number,
    /** CONV-21: the row each layout's flow starts at, and the app tiles' size on a grid that wide. */
    start: (index: number) => number = () => 0,
    tileOf: (layout: DraftLayout, columns: number) => ReturnType<typeof tileSize> = (_layout, columns) => tileSize(columns, section.span),
  ): number[] => {
    const perLayout = layouts.map((layout, layoutIndex) => {
      const columns = columnsOf(layout, layoutIndex);
      const tile = tileOf(layout, columns);
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
          return { layout: layout.name, sectionId, xOffset: place.x, yOffset: place.y + start(layoutIndex), width: place.width, height: place.height };
        }),
      });
    });
    return perLayout.map((places) => Math.max(0, ...places.map((p) => p.y + p.height)));
  };
  /** A dynamic section's entry of the board file, its position per layout. */
  const dynamicSection = (id: string, title: string, parentSectionId: string, places: readonly Placement[]): FileSection => ({
    id,
    kind: 'dynamic',
    options: { title },
    layouts: layouts.map((layout, layoutIndex) => {
      const p = places[layoutIndex];
      return { layout: layout.name, parentSectionId, xOffset: p.x, yOffset: p.y, width: p.width, height: p.height };
    }),
  });
  /**
   * CONV-21: a row of columns: one empty section; each column an untitled dynamic section in it, side by side (each
   * as wide as columnWidths says) on a wide layout and one under another on a phone's; inside a column its parts one
   * under another, a titled part a dynamic section as wide as the column (one row taller than its tiles), the
   * tiles of each flowing by CONV-14 with the column's width as the column count.
   */
  const columnRow = (section: DraftSection, index: number): void => {
    const columns = section.columns!;
    const parentId = idOf.get(section)!;
    sections.push({ id: parentId, kind: 'empty', xOffset: 0, yOffset: index });
    const widths = layouts.map((layout) => columnWidths(layout.columnCount, columns.map((column) => column.size)));
    const partSections: FileSection[] = [];
    const columnHeights = columns.map((column, columnIndex) => {
      const columnId = stableId(draft.name, `section:${column.key}`);
      const tops = layouts.map(() => 0);
      const widthIn = (layoutIndex: number) => widths[layoutIndex][columnIndex];
      for (const part of column.parts) {
        const partTops = [...tops];
        if (part.name === null) {
          const rows = flow(part, columnId, (_layout, layoutIndex) => widthIn(layoutIndex), (layoutIndex) => partTops[layoutIndex], (layout, width) => columnTile(layout.columnCount, width, part.span));
          rows.forEach((count, layoutIndex) => (tops[layoutIndex] += count));
          continue;
        }
        const partId = idOf.get(part)!;
        const rows = flow(part, partId, (_layout, layoutIndex) => widthIn(layoutIndex), () => 0, (layout, width) => columnTile(layout.columnCount, width, part.span));
        const places = layouts.map((_layout, layoutIndex) => ({ x: 0, y: partTops[layoutIndex], width: widthIn(layoutIndex), height: rows[layoutIndex] + 1 }));
        partSections.push(dynamicSection(partId, dynamicTitle(part.name), columnId, places));
        rows.forEach((count, layoutIndex) => (tops[layoutIndex] += count + 1));
      }
      return { columnId, heights: tops };
    });
    // Side by side while they fit the layout's width; a column that does not starts a line below the tallest before.
    const columnPlaces = layouts.map((layout, layoutIndex) => {
      const placed: Placement[] = [];
      let [x, y, lineHeight] = [0, 0, 0];
      columnHeights.forEach((column, columnIndex) => {
        const width = widths[layoutIndex][columnIndex];
        const height = Math.max(1, column.heights[layoutIndex]);
        if (x > 0 && x + width > layout.columnCount) [x, y, lineHeight] = [0, y + lineHeight, 0];
        placed.push({ x, y, width, height });
        [x, lineHeight] = [x + width, Math.max(lineHeight, height)];
      });
      return placed;
    });
    columnHeights.forEach((column, columnIndex) => sections.push(dynamicSection(column.columnId, '', parentId, columnPlaces.map((places) => places[columnIndex]))));
    sections.push(...partSections);
  };
  blocksOf(ordered).forEach((block, index) => {
    if (block.length === 1 && block[0].columns) {
      columnRow(block[0], index);
      return;
    }
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
      const placed: Placement[] = [];
      for (let start = 0; start < block.length; start += perRow) {
        const line = heights.slice(start, start + perRow).map((h) => h[layoutIndex]);
        line.forEach((height, i) => placed.push({ x: i * width, y: top, width, height }));
        top += Math.max(...line);
      }
      return placed;
    });
    block.forEach((section, i) => sections.push(dynamicSection(idOf.get(section)!, dynamicTitle(section.name ?? ''), parentId, places.map((line) => line[i]))));
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
