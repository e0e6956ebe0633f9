/**
 * CAPI-6: the widget's data from a custom API's JSON answer (pure): each field's raw value, label and format (the page
 * formats, CAPI-5), or in list mode the rows of the list `list.path` finds, at most `list.limit`. A path that finds
 * nothing gives null. Values are JSON scalars or lists of them (a `[*]` path); an object or a nested list found gives
 * null; text is cut at `maxTextLength` characters and lists at `maxListValues` values, so the data stays small.
 */
import type { CustomApiDefinition } from './definition';
import type { FieldFormat, FieldValue } from './format';
import { evaluateJsonPath, parseJsonPath, type PathStep } from './jsonPath';

export const maxTextLength = 1000;
export const maxListValues = 100;

export type CustomApiData =
  | { definitionId: string; name: string; mode: 'fields'; fields: { label: string; format: FieldFormat; value: FieldValue }[] }
  | {
      definitionId: string;
      name: string;
      mode: 'list';
      columns: { label: string; format: FieldFormat }[];
      /** One row per list entry (at most the limit), one value per column; null when the path found no list. */
      rows: FieldValue[][] | null;
      /** How many entries the list had before the limit. */
      total: number | null;
    };

type Scalar = string | number | boolean | null;

function scalar(value: unknown): Scalar {
  if (typeof value === 'string') return value.length > maxTextLength ? value.slice(0, maxTextLength) : value;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return null;
}

function pickOne(root: unknown, steps: readonly PathStep[]): FieldValue {
  const found = evaluateJsonPath(root, steps);
  if (!found.found) return null;
  if (steps.some((step) => 'every' in step)) return (found.value as unknown[]).slice(0, maxListValues).map(scalar);
  return scalar(found.value);
}

const stepsOf = (path: string): PathStep[] => {
  const parsed = parseJsonPath(path);
  // Paths were checked when the definition was written (CAPI-2); a stored one that no longer parses finds nothing.
  return 'error' in parsed ? [{ member: '\u0000' }] : parsed;
};

export function pickCustomApiData(definition: Pick<CustomApiDefinition, 'id' | 'name' | 'fields' | 'list'>, answer: unknown): CustomApiData {
  const fieldSteps = definition.fields.map((field) => stepsOf(field.path));
  const base = { definitionId: definition.id, name: definition.name };
  if (!definition.list) {
    return { ...base, mode: 'fields', fields: definition.fields.map((field, i) => ({ label: field.label, format: field.format, value: pickOne(answer, fieldSteps[i]!) })) };
  }
  const columns = definition.fields.map((field) => ({ label: field.label, format: field.format }));
  const found = evaluateJsonPath(answer, stepsOf(definition.list.path));
  if (!found.found || !Array.isArray(found.value)) return { ...base, mode: 'list', columns, rows: null, total: null };
  const entries = found.value;
  return { ...base, mode: 'list', columns, rows: entries.slice(0, definition.list.limit).map((entry) => fieldSteps.map((steps) => pickOne(entry, steps))), total: entries.length };
}
