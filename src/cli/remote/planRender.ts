/**
 * Plans (what an import would change) and diffs (what changed between revisions) for people: board fields
 * `~ field: from -> to`, then `+` added, `-` removed and `~` updated layouts, sections and items, each with what is
 * known of it (an item's kind, a section's kind and name, a layout's name), then warnings.
 */
import type { BoardDocument, BoardFile, ElementChanges, FieldChange, ImportPlan, RevisionDiff } from './api';
import type { Colors } from './output';

export interface Changes {
  sections: ElementChanges;
  items: ElementChanges;
  layouts: ElementChanges;
  board: Record<string, FieldChange>;
}

/** What is known of elements, by id: `clock`, `category "Media"`, `Phone`. */
export type Labels = Map<string, string>;

const elementKinds = ['layouts', 'sections', 'items'] as const;
const singular = { layouts: 'layout', sections: 'section', items: 'item' } as const;

export function hasChanges(changes: Changes): boolean {
  return Object.keys(changes.board).length > 0 || elementKinds.some((kind) => counts(changes[kind]) > 0);
}

const counts = (changes: ElementChanges) => changes.added.length + changes.removed.length + changes.updated.length;

const sectionLabel = (section: { kind?: string; name?: string | null }) =>
  section.kind === 'category' && section.name ? `category ${JSON.stringify(section.name)}` : (section.kind ?? '');

export function labelsFromDocument(board: BoardDocument): Labels {
  return new Map([
    ...board.layouts.map((layout) => [layout.id, layout.name] as const),
    ...board.sections.map((section) => [section.id, sectionLabel(section as { kind?: string; name?: string })] as const),
    ...board.items.map((item) => [item.id, item.kind] as const),
  ]);
}

/** Labels from a file as read from disk: anything may be missing or of the wrong type there. */
export function labelsFromFile(file: Partial<BoardFile> | null): Labels {
  const labels: Labels = new Map();
  const elements = (value: unknown) => (Array.isArray(value) ? value.filter((e) => e && typeof e.id === 'string') : []);
  for (const section of elements(file?.sections)) labels.set(section.id, sectionLabel(section));
  for (const item of elements(file?.items)) if (typeof item.kind === 'string') labels.set(item.id, item.kind);
  return labels;
}

/** The labels of several sources, the later ones winning. */
export function mergeLabels(...sources: Labels[]): Labels {
  return new Map(sources.flatMap((labels) => [...labels]));
}

function shortValue(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function changeLines(changes: Changes, labels: Labels, c: Colors): string[] {
  const lines = Object.entries(changes.board).map(
    ([field, { from, to }]) => `  ${c.yellow('~')} ${field}: ${c.red(shortValue(from))} -> ${c.green(shortValue(to))}`,
  );
  const element = (kind: (typeof elementKinds)[number], id: string) => {
    const label = labels.get(id);
    return `${singular[kind]} ${id}${label ? ` ${c.dim(`(${label})`)}` : ''}`;
  };
  for (const kind of elementKinds) {
    lines.push(...changes[kind].added.map((id) => `  ${c.green('+')} ${element(kind, id)}`));
    lines.push(...changes[kind].removed.map((id) => `  ${c.red('-')} ${element(kind, id)}`));
    lines.push(...changes[kind].updated.map((id) => `  ${c.yellow('~')} ${element(kind, id)}`));
  }
  return lines;
}

const planWords = ['to add', 'to change', 'to remove'];
const diffWords = ['added', 'changed', 'removed'];

/** `1 to add, 2 to change, 0 to remove`: elements, with changed board fields among the changes. */
function tally(changes: Changes, [added, changed, removed]: string[]): string {
  const sum = (key: keyof ElementChanges) => elementKinds.reduce((total, kind) => total + changes[kind][key].length, 0);
  const fields = Object.keys(changes.board).length;
  return `${sum('added')} ${added}, ${sum('updated') + fields} ${changed}, ${sum('removed')} ${removed}`;
}

export function renderPlan(plan: ImportPlan, labels: Labels, c: Colors): string[] {
  if (!hasChanges(plan.changes)) return [`No changes: board ${plan.name} already matches the file.`];
  const heading =
    plan.action === 'create'
      ? `Board ${c.bold(plan.name)} will be ${c.green('created')}:`
      : `Board ${c.bold(plan.name)} (${plan.boardId}, version ${plan.version}) will be ${c.yellow('updated')}:`;
  const lines = [heading, ...changeLines(plan.changes, labels, c)];
  if (plan.warnings.length > 0) {
    lines.push('', c.yellow('Warnings:'), ...plan.warnings.map((w) => `  ${c.yellow('!')} ${w.code} ${w.path}: ${w.message}`));
  }
  if (plan.ignored.length > 0) lines.push('', 'Ignored:', ...plan.ignored.map((i) => `  ${i.rule} ${i.path ?? ''}: ${i.message}`));
  return [...lines, '', `Plan: ${tally(plan.changes, planWords)}.`];
}

export function renderDiff(boardName: string, diff: RevisionDiff, labels: Labels, c: Colors): string[] {
  const range = `from revision ${diff.from} to ${diff.to === null ? 'now' : `revision ${diff.to}`}`;
  if (!hasChanges(diff.changes)) return [`No changes to board ${boardName} ${range}.`];
  return [`Changes to board ${c.bold(boardName)} ${range}:`, ...changeLines(diff.changes, labels, c), '', `${tally(diff.changes, diffWords)}.`];
}
