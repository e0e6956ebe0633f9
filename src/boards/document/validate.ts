import { badRequest } from '../../core/errors';
import type { BoardContent, BoardItemInput, BoardSectionInput } from './types';

/** How many ids an error names; the rest are counted, so that a hostile payload cannot make its refusal large. */
const shownIdCount = 20;

/** The first ids an error names: unique, in first-seen order. */
export const shownIds = (ids: Iterable<string>) => [...new Set(ids)].slice(0, shownIdCount);

/** Values listed in messages: unique, in first-seen order, the first 20 then `… and N more`. */
export function listIds(ids: Iterable<string>): string {
  const unique = [...new Set(ids)];
  const shown = unique.slice(0, shownIdCount).join(', ');
  return unique.length > shownIdCount ? `${shown} … and ${unique.length - shownIdCount} more` : shown;
}

function duplicates(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const id of ids) (seen.has(id) ? twice : seen).add(id);
  return [...twice];
}

/** Deepest nesting accepted in a stored JSON map (PostgreSQL's jsonb parser has a stack limit). */
export const maxJsonDepth = 64;

/**
 * Whether PostgreSQL's jsonb parser would refuse the value for nesting deeper than maxJsonDepth. Iterative, so
 * hostile nesting cannot overflow the stack. (NUL characters and lone surrogates, which jsonb cannot store either,
 * are refused for every request in src/http/requestInput.ts.)
 */
export function nestedTooDeeply(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > maxJsonDepth) return true;
    for (const inner of Object.values(current)) stack.push([inner, depth + 1]);
  }
  return false;
}

/** 400 naming the value when it is nested too deeply to be stored as jsonb. */
export function assertStorableJson(value: unknown, what: string): void {
  if (nestedTooDeeply(value)) throw badRequest(`Cannot store ${what}: nesting deeper than ${maxJsonDepth} levels`);
}

/**
 * Checks of a PUT payload that need no database: duplicate ids, positions referencing sections that are not in
 * the payload, dynamic sections nested in themselves, two positions for one layout, option maps nested too deeply.
 * Each failure is a 400 naming the offending ids.
 */
export function validateContent(content: BoardContent): void {
  const duplicateItems = duplicates(content.items.map((item) => item.id));
  if (duplicateItems.length > 0) throw badRequest(`Duplicate item ids in payload: ${listIds(duplicateItems)}`, { itemIds: duplicateItems });
  const duplicateSections = duplicates(content.sections.map((section) => section.id));
  if (duplicateSections.length > 0) {
    throw badRequest(`Duplicate section ids in payload: ${listIds(duplicateSections)}`, { sectionIds: duplicateSections });
  }
  validateItemPositions(content.items, new Set(content.sections.map((section) => section.id)));
  validateSectionPositions(content.sections);
  validateItemValues(content.items);
  for (const section of content.sections) {
    if (section.kind === 'dynamic') assertStorableJson(section.options, `options of section ${section.id}`);
  }
}

/** Positions of items naming sections outside `sectionIds`, or two positions in one layout: a 400 naming the ids. */
export function validateItemPositions(items: readonly BoardItemInput[], sectionIds: ReadonlySet<string>): void {
  // Plain loops: a whole-board PUT holds thousands of positions, and an item has a position per layout (a few).
  const unknownItemSections: string[] = [];
  const doubledItems: string[] = [];
  for (const item of items) {
    const positions = item.layouts;
    let doubled = false;
    for (let i = 0; i < positions.length; i++) {
      if (!sectionIds.has(positions[i].sectionId)) unknownItemSections.push(positions[i].sectionId);
      for (let j = 0; j < i && !doubled; j++) doubled = positions[j].layoutId === positions[i].layoutId;
    }
    if (doubled) doubledItems.push(item.id);
  }
  if (unknownItemSections.length > 0) {
    throw badRequest(`Item positions reference sections not in the payload: ${listIds(unknownItemSections)}`, {
      sectionIds: [...new Set(unknownItemSections)],
    });
  }
  if (doubledItems.length > 0) {
    throw badRequest(`Items with more than one position in the same layout: ${listIds(doubledItems)}`, { itemIds: doubledItems });
  }
}

/** Option maps of items nested too deeply to be stored. */
export function validateItemValues(items: readonly BoardItemInput[]): void {
  for (const item of items) {
    assertStorableJson(item.options, `options of item ${item.id}`);
    assertStorableJson(item.advancedOptions, `advancedOptions of item ${item.id}`);
  }
}

/**
 * Positions of dynamic sections naming parents outside the sections, two positions in one layout, or a dynamic
 * section inside itself (directly or through others) in any layout: a 400 naming the ids.
 */
function validateSectionPositions(sections: readonly BoardSectionInput[]): void {
  const sectionIds = new Set(sections.map((section) => section.id));
  const dynamicSections = sections.flatMap((section) => (section.kind === 'dynamic' ? [section] : []));
  const unknownParents = dynamicSections.flatMap((s) => s.layouts.map((p) => p.parentSectionId)).filter((id) => !sectionIds.has(id));
  if (unknownParents.length > 0) {
    throw badRequest(`Dynamic section positions reference parent sections not in the payload: ${listIds(unknownParents)}`, {
      sectionIds: [...new Set(unknownParents)],
    });
  }
  const doubledSections = dynamicSections.filter((s) => duplicates(s.layouts.map((p) => p.layoutId)).length > 0).map((s) => s.id);
  if (doubledSections.length > 0) {
    throw badRequest(`Dynamic sections with more than one position in the same layout: ${listIds(doubledSections)}`, {
      sectionIds: doubledSections,
    });
  }
  const parentIn = new Map<string, string>(); // `${layoutId}\n${sectionId}` -> parent
  for (const section of dynamicSections) for (const p of section.layouts) parentIn.set(`${p.layoutId}\n${section.id}`, p.parentSectionId);
  const cyclic = new Set<string>();
  for (const section of dynamicSections) {
    for (const p of section.layouts) {
      let current: string | undefined = p.parentSectionId;
      for (let steps = 0; current !== undefined && steps <= dynamicSections.length; steps++) {
        if (current === section.id) {
          cyclic.add(section.id);
          break;
        }
        current = parentIn.get(`${p.layoutId}\n${current}`);
      }
    }
  }
  if (cyclic.size > 0) throw badRequest(`Dynamic sections nested in themselves: ${listIds(cyclic)}`, { sectionIds: [...cyclic] });
}

/** Layout ids referenced by positions in the payload that are not layouts of the board. */
export function unknownLayoutIds(content: BoardContent, boardLayoutIds: ReadonlySet<string>): string[] {
  const unknown = new Set<string>();
  for (const item of content.items) for (const p of item.layouts) if (!boardLayoutIds.has(p.layoutId)) unknown.add(p.layoutId);
  for (const section of content.sections) {
    if (section.kind === 'dynamic') for (const p of section.layouts) if (!boardLayoutIds.has(p.layoutId)) unknown.add(p.layoutId);
  }
  return [...unknown];
}
