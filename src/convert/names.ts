/**
 * Names and keys of one conversion made unique in order: one seen before gets a suffix with the first free number
 * from 2, so the result still derives from the source alone (the same input, the same names).
 */
function uniqueBy(values: readonly string[], suffixed: (value: string, n: number) => string, fold: (value: string) => string): string[] {
  const used = new Set<string>();
  return values.map((value) => {
    let candidate = value;
    for (let n = 2; used.has(fold(candidate)); n++) candidate = suffixed(value, n);
    used.add(fold(candidate));
    return candidate;
  });
}

/** Board names: a repeated name gets `-2`, `-3`, … (as an import with rename does), letter case ignored. */
export function uniqueNames(names: readonly string[]): string[] {
  return uniqueBy(names, (name, n) => `${name}-${n}`, (name) => name.toLowerCase());
}

/**
 * Keys that ids derive from: a repeated key gets `#2`, `#3`, … (two homepage groups, or two services of one group,
 * with the same name), so the ids stay distinct.
 */
export function uniqueKeys(keys: readonly string[]): string[] {
  return uniqueBy(keys, (key, n) => `${key}#${n}`, (key) => key);
}

/**
 * CONV-13: the board names of one conversion from the titles (already board names): with `--name`, the first (main)
 * board takes that name and the others `<name>-<their own>`, so that two tools' configurations with the same title
 * can be converted to boards that do not collide. Unique in order (`uniqueNames`).
 */
export function boardNames(titles: readonly string[], name?: string): string[] {
  if (!name) return uniqueNames(titles);
  return uniqueNames(titles.map((title, index) => (index === 0 ? name : `${name}-${title}`.slice(0, 255))));
}
