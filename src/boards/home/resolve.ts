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
 * mobile browser. Anything else is not known to be a phone: a desktop browser's window may still be narrow, so the
 * page decides by the window's width when the two home boards differ.
 */
export function isPhoneRequest(headers: Record<string, string | string[] | undefined>): boolean {
  const header = (name: string) => {
    const value = headers[name];
    return (Array.isArray(value) ? value[0] : value) ?? '';
  };
  return header('sec-ch-ua-mobile').trim() === '?1' || /Mobi|iPhone|iPod|Windows Phone/.test(header('user-agent'));
}
