/**
 * CAPI-4: the JSON path subset custom API fields are picked with. A path starts at `$` (the answer, or in list mode
 * the entry) and goes on by steps:
 * - `.name` (letters, digits, `_`, `$`, `-`; not starting with a digit or `-`) or `['any name']` (quotes `'` or `"`,
 *   no escapes): a member of an object;
 * - `[3]`: an element of an array (from 0);
 * - `[*]`: every element of an array (or every member value of an object): the path then finds a list.
 * A step that finds nothing (a missing member, an index past the end, a member of a non-object) ends in nothing: the
 * value is null, never an error. After a `[*]` the following steps apply to each element and drop those finding nothing.
 */

export type PathStep = { member: string } | { index: number } | { every: true };

export const maxPathLength = 256;

/** The steps of `path`, or a message saying what is wrong with it (for a 400 naming the field). */
export function parseJsonPath(path: string): PathStep[] | { error: string } {
  if (path.length > maxPathLength) return { error: `must be at most ${maxPathLength} characters` };
  if (!path.startsWith('$')) return { error: 'must start with $' };
  const steps: PathStep[] = [];
  let at = 1;
  const step = /\.([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d{1,9})\]|\[\*\]|\['([^']*)'\]|\["([^"]*)"\]/y;
  while (at < path.length) {
    step.lastIndex = at;
    const match = step.exec(path);
    if (!match) return { error: `cannot read "${path.slice(at, at + 20)}" at character ${at + 1}: use .name, ['name'], [0] or [*]` };
    if (match[1] !== undefined) steps.push({ member: match[1] });
    else if (match[2] !== undefined) steps.push({ index: Number(match[2]) });
    else if (match[3] !== undefined || match[4] !== undefined) steps.push({ member: (match[3] ?? match[4])! });
    else steps.push({ every: true });
    at = step.lastIndex;
  }
  return steps;
}

const has = (value: object, key: string) => Object.prototype.hasOwnProperty.call(value, key);

function stepOnce(value: unknown, step: PathStep): unknown[] {
  if ('member' in step) {
    return typeof value === 'object' && value !== null && !Array.isArray(value) && has(value, step.member) ? [(value as Record<string, unknown>)[step.member]] : [];
  }
  if ('index' in step) return Array.isArray(value) && step.index < value.length ? [value[step.index]] : [];
  if (Array.isArray(value)) return value;
  if (typeof value === 'object' && value !== null) return Object.values(value);
  return [];
}

/**
 * CAPI-4: what `steps` find in `root`: `{found: false}` for nothing; one value without `[*]`; with `[*]`, the list of
 * everything found (possibly empty).
 */
export function evaluateJsonPath(root: unknown, steps: readonly PathStep[]): { found: false } | { found: true; value: unknown } {
  let current: unknown[] = [root];
  for (const step of steps) current = current.flatMap((value) => stepOnce(value, step));
  if (steps.some((step) => 'every' in step)) return { found: true, value: current };
  return current.length === 0 ? { found: false } : { found: true, value: current[0] };
}
