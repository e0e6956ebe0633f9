/** Board names of one conversion made unique: a repeated name gets `-2`, `-3`, … (as an import with rename does). */
export function uniqueNames(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    let candidate = name;
    for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = `${name}-${n}`;
    used.add(candidate.toLowerCase());
    return candidate;
  });
}
