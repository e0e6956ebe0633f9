/**
 * The access lattice every per-resource permission follows (ACCESS-1, ACCESS-3, ACCESS-4): a resource has three
 * ordered levels; a level is held through an own grant row (the caller's user row or a row of one of its groups) at
 * that level or above, or through the global permission of that level or above (`board-modify-all`, …).
 */
export type LevelFlags<L extends string> = Record<L, boolean>;

/**
 * Which of `levels` (lowest first) the caller holds, given the levels of its own grant rows and whether it holds
 * the global permission of each level.
 */
export function resolveLevels<L extends string>(
  levels: readonly L[],
  ownLevels: readonly L[],
  holdsGlobal: (level: L) => boolean,
): LevelFlags<L> {
  const flags = {} as LevelFlags<L>;
  let heldAbove = false;
  for (let rank = levels.length - 1; rank >= 0; rank--) {
    const level = levels[rank];
    heldAbove = heldAbove || ownLevels.includes(level) || holdsGlobal(level);
    flags[level] = heldAbove;
  }
  return flags;
}

/** Sorts grant rows by their level, lowest first. */
export function byLevel<L extends string>(levels: readonly L[]): (a: { permission: L }, b: { permission: L }) => number {
  return (a, b) => levels.indexOf(a.permission) - levels.indexOf(b.permission);
}
