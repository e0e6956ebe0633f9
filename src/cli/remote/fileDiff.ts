/**
 * Field-level differences between two board files (`tessera diff`, `tessera drift`): board fields and the settings
 * the newer file states, layouts by name, sections and items by id, each item's options, apps and integrations, and
 * its positions per layout name. Pure: the commands fetch the live board's file and print the lines.
 */
import type { BoardFile } from './api';
import type { Colors } from './output';

export interface FieldDiff {
  /** `+` added, `-` removed, `~` changed. */
  op: '+' | '-' | '~';
  /** What it is about: `board`, `layout Base`, `item clk1 (clock)`, `section s1 (empty)`. */
  subject: string;
  /** The field, empty for a whole element: `options.is24HourFormat`, `@Base.xOffset`. */
  field: string;
  from?: unknown;
  to?: unknown;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every leaf (or array) of `before` and `after` that differs, by dotted path under `prefix`. */
function fieldChanges(subject: string, prefix: string, before: unknown, after: unknown, out: FieldDiff[]): void {
  if (isRecord(before) && isRecord(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      fieldChanges(subject, prefix ? `${prefix}.${key}` : key, before[key], after[key], out);
    }
    return;
  }
  if (same(before, after)) return;
  out.push({ op: before === undefined ? '+' : after === undefined ? '-' : '~', subject, field: prefix, from: before, to: after });
}

type Element = { id: string; kind?: string; name?: string | null; layouts?: ({ layout: string } & Record<string, unknown>)[] } & Record<string, unknown>;

const label = (what: string, element: Element) =>
  `${what} ${element.id} (${element.kind === 'category' && element.name ? `category "${element.name}"` : (element.kind ?? '?')})`;

/** Positions keyed by layout name. */
const positions = (element: Element) => Object.fromEntries((element.layouts ?? []).map(({ layout, ...position }) => [`@${layout}`, position]));

/** Which side is the file: its elements' fields are the ones compared (a file leaves out fields at their defaults). */
export type FileSide = 'before' | 'after';

const statedPart = (fields: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.map((key) => [key, fields[key]]));

function elementChanges(what: string, before: Element[], after: Element[], out: FieldDiff[], side: FileSide): void {
  const old = new Map(before.map((e) => [e.id, e]));
  const now = new Map(after.map((e) => [e.id, e]));
  for (const element of after) if (!old.has(element.id)) out.push({ op: '+', subject: label(what, element), field: '' });
  for (const element of before) if (!now.has(element.id)) out.push({ op: '-', subject: label(what, element), field: '' });
  for (const element of after) {
    const previous = old.get(element.id);
    if (!previous) continue;
    const { layouts: _a, id: _i, ...fields } = element;
    const { layouts: _b, id: _j, ...previousFields } = previous;
    const keys = Object.keys(side === 'after' ? fields : previousFields);
    fieldChanges(label(what, element), '', { ...statedPart(previousFields, keys), ...positions(previous) }, { ...statedPart(fields, keys), ...positions(element) }, out);
  }
}

/**
 * What turns `before` (null: no such board) into `after`. Settings and element fields are compared where the file
 * (`side`) states them (a file leaves out what is at its default); `source` and `managedBy` are not content.
 */
export function diffBoardFiles(before: BoardFile | null, after: BoardFile, side: FileSide = 'after'): FieldDiff[] {
  if (!before) return [{ op: '+', subject: `board ${after.name}`, field: '' }];
  const out: FieldDiff[] = [];
  fieldChanges('board', 'isPublic', before.isPublic ?? false, after.isPublic ?? false, out);
  const stated = Object.keys((side === 'after' ? after : before).settings ?? {});
  const pick = (file: BoardFile) => Object.fromEntries(stated.map((key) => [key, (file.settings as Record<string, unknown> | undefined)?.[key]]));
  fieldChanges('board', 'settings', pick(before), pick(after), out);
  const layouts = (file: BoardFile) => Object.fromEntries(file.layouts.map(({ name, ...rest }) => [name, rest]));
  const [oldLayouts, newLayouts] = [layouts(before), layouts(after)];
  for (const name of Object.keys(newLayouts)) if (!(name in oldLayouts)) out.push({ op: '+', subject: `layout ${name}`, field: '' });
  for (const name of Object.keys(oldLayouts)) if (!(name in newLayouts)) out.push({ op: '-', subject: `layout ${name}`, field: '' });
  for (const name of Object.keys(newLayouts)) if (name in oldLayouts) fieldChanges(`layout ${name}`, '', oldLayouts[name], newLayouts[name], out);
  elementChanges('section', before.sections as unknown as Element[], after.sections as unknown as Element[], out, side);
  elementChanges('item', before.items as unknown as Element[], after.items as unknown as Element[], out, side);
  return out;
}

function value(v: unknown): string {
  const text = JSON.stringify(v) ?? 'undefined';
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function renderFieldDiffs(diffs: FieldDiff[], c: Colors): string[] {
  return diffs.map((d) => {
    const mark = d.op === '+' ? c.green('+') : d.op === '-' ? c.red('-') : c.yellow('~');
    if (!d.field) return `  ${mark} ${d.subject}`;
    if (d.op === '+') return `  ${mark} ${d.subject} ${d.field}: ${c.green(value(d.to))}`;
    if (d.op === '-') return `  ${mark} ${d.subject} ${d.field}: ${c.red(value(d.from))}`;
    return `  ${mark} ${d.subject} ${d.field}: ${c.red(value(d.from))} -> ${c.green(value(d.to))}`;
  });
}
