/**
 * Grid algorithms (GRID-1, GRID-2): occupancy, first-free placement and the refit of a layout's
 * positions to a new column count. Pure functions; no database.
 */
import { openApiDocument } from '../../core/openapiDocument';

/** The largest xOffset/yOffset a document may hold (the GridOffset schema's maximum). */
export const maxGridOffset: number = (openApiDocument.components?.schemas?.GridOffset as { maximum: number }).maximum;

export interface Cell {
  x: number;
  y: number;
}

export interface Rect extends Cell {
  width: number;
  height: number;
}

/** Which cells of a grid with `columns` columns are taken. Cells right of the grid are ignored. */
export class Occupancy {
  private readonly rows = new Map<number, Uint8Array>();
  private bottom = 0;
  /**
   * Per block size, the row of the last first-free cell found. Cells are only ever taken, never freed, so no block
   * of that size fits above it later either: the next search starts there. Packing n elements one after another
   * visits O(n) rows instead of O(n²) (PATCH layouts refitting a large board, LAYOUT-3, LAYOUT-4).
   */
  private readonly searchFrom = new Map<string, number>();

  constructor(readonly columns: number) {}

  mark(rect: Rect): void {
    const from = Math.max(0, rect.x);
    const to = Math.min(this.columns, rect.x + rect.width);
    if (to <= from || rect.height <= 0) return;
    for (let y = rect.y; y < rect.y + rect.height; y++) {
      let row = this.rows.get(y);
      if (!row) {
        row = new Uint8Array(this.columns);
        this.rows.set(y, row);
      }
      row.fill(1, from, to);
    }
    this.bottom = Math.max(this.bottom, rect.y + rect.height);
  }

  fits(x: number, y: number, width: number, height: number): boolean {
    if (x < 0 || x + width > this.columns) return false;
    for (let row = y; row < y + height; row++) {
      const cells = this.rows.get(row);
      if (!cells) continue;
      for (let col = x; col < x + width; col++) if (cells[col]) return false;
    }
    return true;
  }

  /**
   * The first cell, scanning rows top-down and columns left to right, where a width x height block fits
   * (x + width <= columns, no overlap; rows below the grid are free). Null when width exceeds the columns.
   */
  firstFree(width: number, height: number): Cell | null {
    if (width < 1 || width > this.columns) return null;
    const size = `${width}x${height}`;
    for (let y = this.searchFrom.get(size) ?? 0; y <= this.bottom; y++) {
      for (let x = 0; x + width <= this.columns; x++) {
        if (this.fits(x, y, width, height)) {
          this.searchFrom.set(size, y);
          return { x, y };
        }
      }
    }
    return { x: 0, y: this.bottom };
  }

  /** Number of rows down to the lowest occupied one. */
  get height(): number {
    return this.bottom;
  }
}

/** An item or dynamic section positioned inside a section (`parentId`) of one layout. */
export interface GridElement extends Rect {
  type: 'item' | 'section';
  id: string;
  /** The section holding the element: the item's sectionId or the dynamic section's parentSectionId. */
  parentId: string;
}

const keyOf = (e: { type: string; id: string }) => `${e.type}:${e.id}`;

/**
 * Refits the positions of one layout from `previousColumns` to `columns`, section by section, starting at the
 * root (non-dynamic) sections. Within a section elements are sorted by y then x; widths are clamped to the
 * column count; when the grid shrinks the elements are re-packed first-fit (a dynamic section is at least as
 * high as its refitted content), otherwise every position stays as it was. Elements not reachable from a root
 * section (their parent has no position in this layout) are not returned.
 */
export function refitLayout(elements: readonly GridElement[], rootSectionIds: readonly string[], previousColumns: number, columns: number): GridElement[] {
  const byParent = new Map<string, GridElement[]>();
  for (const element of elements) {
    const list = byParent.get(element.parentId) ?? [];
    list.push(element);
    byParent.set(element.parentId, list);
  }
  const out: GridElement[] = [];
  const visited = new Set<string>();
  for (const root of rootSectionIds) fitSection(byParent, root, previousColumns, columns, out, visited);
  return out;
}

function fitSection(
  byParent: Map<string, GridElement[]>,
  sectionId: string,
  previousColumns: number,
  columns: number,
  out: GridElement[],
  visited: Set<string>,
): number {
  if (visited.has(sectionId)) return 0;
  visited.add(sectionId);
  const children = [...(byParent.get(sectionId) ?? [])].sort((a, b) => a.y - b.y || a.x - b.x);
  if (children.length === 0) return 0;
  const normalized = children.map((element) => ({ element, width: Math.min(columns, element.width) }));
  const innerHeights = new Map<string, number>();
  for (const { element, width } of normalized) {
    if (element.type === 'section') innerHeights.set(element.id, fitSection(byParent, element.id, element.width, width, out, visited));
  }
  if (columns >= previousColumns) {
    let height = 0;
    for (const { element } of normalized) {
      out.push({ ...element });
      height = Math.max(height, element.y + element.height);
    }
    return height;
  }
  const grid = new Occupancy(columns);
  for (const { element, width } of normalized) {
    const height = element.type === 'section' ? Math.max(Math.max(innerHeights.get(element.id) ?? 0, 1), element.height) : element.height;
    const cell = grid.firstFree(width, height)!;
    const placed = { ...element, x: cell.x, y: cell.y, width, height };
    grid.mark(placed);
    out.push(placed);
  }
  return grid.height;
}

/**
 * Places elements that have no position yet at the first free cell of their target section, next to the
 * already placed elements of that section (width clamped to the column count). Returns the new placements.
 */
export function placeMissing(placed: readonly GridElement[], missing: readonly GridElement[], columns: number): GridElement[] {
  const grids = new Map<string, Occupancy>();
  const gridOf = (sectionId: string) => {
    let grid = grids.get(sectionId);
    if (!grid) {
      grid = new Occupancy(columns);
      for (const element of placed) if (element.parentId === sectionId) grid.mark(element);
      grids.set(sectionId, grid);
    }
    return grid;
  };
  const out: GridElement[] = [];
  for (const element of missing) {
    const width = Math.max(1, Math.min(columns, element.width));
    const grid = gridOf(element.parentId);
    const cell = grid.firstFree(width, element.height)!;
    const position = { ...element, x: cell.x, y: cell.y, width };
    grid.mark(position);
    out.push(position);
  }
  return out;
}

export { keyOf as gridKey };
