/**
 * Positions for boards converted from dashboards that have none (CONV-2): a deterministic first-fit auto-flow per
 * layout. Items keep their source order, rows fill left to right within the section's column hint, nothing
 * overlaps. Explicit positions (old Homarr) are kept when they fit the layout and overlap nothing placed before.
 */

export interface FlowItem {
  width: number;
  height: number;
  /** A position the source gave for this layout. */
  fixed?: { x: number; y: number } | null;
}

export interface Placement {
  x: number;
  y: number;
  width: number;
  height: number;
}

class Occupancy {
  private readonly cells = new Set<string>();

  fits(x: number, y: number, width: number, height: number): boolean {
    for (let dy = 0; dy < height; dy++) for (let dx = 0; dx < width; dx++) if (this.cells.has(`${x + dx},${y + dy}`)) return false;
    return true;
  }

  take(x: number, y: number, width: number, height: number): void {
    for (let dy = 0; dy < height; dy++) for (let dx = 0; dx < width; dx++) this.cells.add(`${x + dx},${y + dy}`);
  }
}

/**
 * Places `items` (in order) on a grid of `columnCount` columns. `span` (the source's columns hint) bounds how far
 * right the flow goes; an item wider than the span still gets its width (up to the column count).
 */
export function autoFlow(columnCount: number, items: readonly FlowItem[], span?: number | null): Placement[] {
  const occupied = new Occupancy();
  const limit = Math.max(1, Math.min(columnCount, Math.floor(span ?? columnCount)));
  const placements: (Placement | null)[] = items.map(() => null);
  // Explicit positions first, in order, each kept only where it fits and is still free.
  items.forEach((item, index) => {
    const width = Math.min(Math.max(1, item.width), columnCount);
    const height = Math.max(1, item.height);
    const fixed = item.fixed;
    if (fixed && fixed.x >= 0 && fixed.y >= 0 && fixed.x + width <= columnCount && occupied.fits(fixed.x, fixed.y, width, height)) {
      occupied.take(fixed.x, fixed.y, width, height);
      placements[index] = { x: fixed.x, y: fixed.y, width, height };
    }
  });
  let firstRow = 0;
  items.forEach((item, index) => {
    if (placements[index]) return;
    const width = Math.min(Math.max(1, item.width), columnCount);
    const height = Math.max(1, item.height);
    const right = Math.max(limit, width);
    for (let y = firstRow; ; y++) {
      for (let x = 0; x + width <= right; x++) {
        if (occupied.fits(x, y, width, height)) {
          occupied.take(x, y, width, height);
          placements[index] = { x, y, width, height };
          return;
        }
      }
      // A row with no free cell within the limit is never looked at again.
      if (!occupied.fits(0, y, 1, 1) && [...Array(limit).keys()].every((x) => !occupied.fits(x, y, 1, 1))) firstRow = y + 1;
    }
  });
  return placements as Placement[];
}
