/**
 * Which board is a caller's home board (BOARD-9, NAV-1): a pure rule, the pointers in, one board id (or none) out.
 * The order is the reference's (Homarr's getHomeBoard): on a phone the user's mobile home board, then its desktop
 * home board; then the caller's groups by position (mobile then desktop on a phone, desktop otherwise); then the
 * server setting (mobile then desktop on a phone). Tessera has no implicit "everyone" group, so that step is absent.
 */
export interface HomePointers {
  homeBoardId: string | null;
  mobileHomeBoardId: string | null;
}

export interface HomeCandidates {
  /** The caller's own pointers; null for an anonymous caller. */
  user: HomePointers | null;
  /** The caller's groups' pointers, with their positions (any order). */
  groups: (HomePointers & { position: number })[];
  server: HomePointers;
}

export function resolveHomeBoard(candidates: HomeCandidates, device: 'desktop' | 'mobile'): string | null {
  const pick = (pointers: HomePointers | null) =>
    pointers ? (device === 'mobile' ? (pointers.mobileHomeBoardId ?? pointers.homeBoardId) : pointers.homeBoardId) : null;
  const groups = [...candidates.groups].sort((a, b) => a.position - b.position);
  for (const pointers of [candidates.user, ...groups, candidates.server]) {
    const id = pick(pointers);
    if (id) return id;
  }
  return null;
}

/**
 * NAV-2: a request says it comes from a phone with the `Sec-CH-UA-Mobile: ?1` client hint or a user agent naming a
 * mobile browser; `?0` says it does not. Anything else is unknown (the page decides by the window's width).
 */
export function deviceFromHeaders(headers: Record<string, string | string[] | undefined>): 'desktop' | 'mobile' | null {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const hint = header('sec-ch-ua-mobile')?.trim();
  if (hint === '?1') return 'mobile';
  const agent = header('user-agent') ?? '';
  if (/\b(Mobi|iPhone|iPod|Android.+Mobile|Windows Phone)\b/i.test(agent)) return 'mobile';
  if (hint === '?0') return 'desktop';
  return null;
}
