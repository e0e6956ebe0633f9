/** Helpers of the converter tests: fixture directories as readers, and the overlap check of CONV-2. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ConvertInput } from '../../src/convert';

export const fixtures = path.join(__dirname, 'fixtures');

/** A fixture directory as a converter's input (every file of it, read on demand). */
export function fixtureInput(name: string): ConvertInput {
  const directory = path.join(fixtures, name);
  return {
    files: readdirSync(directory).sort(),
    read: (relative) => {
      const file = path.join(directory, relative);
      return existsSync(file) ? readFileSync(file, 'utf8') : null;
    },
  };
}

/** An input from texts in memory; reads are recorded. */
export function memoryInput(files: Record<string, string>, reads: string[] = []): ConvertInput {
  return {
    files: Object.keys(files),
    read: (relative) => {
      reads.push(relative);
      return files[relative] ?? null;
    },
  };
}

/** Pairs of items whose rectangles overlap in one section of one layout. */
export function overlaps(board: { items: { id: string; layouts: { layout: string; sectionId: string; xOffset: number; yOffset: number; width: number; height: number }[] }[] }): string[] {
  const found: string[] = [];
  const cells = new Map<string, string>();
  for (const item of board.items) {
    for (const p of item.layouts) {
      for (let dx = 0; dx < p.width; dx++)
        for (let dy = 0; dy < p.height; dy++) {
          const key = `${p.layout}/${p.sectionId}/${p.xOffset + dx},${p.yOffset + dy}`;
          const other = cells.get(key);
          if (other && other !== item.id) found.push(`${other} ${item.id} at ${key}`);
          cells.set(key, item.id);
        }
    }
  }
  return found;
}
