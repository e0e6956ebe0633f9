/**
 * The page's layout state that outlives a redraw (NAV-5): which category sections are open (a collapsed section starts
 * folded, the reader may open it). Phone width is narrower than 768 px (NAV-2 uses the same limit for the mobile home
 * board); the board details drawer is in details.ts (PAGE-9).
 */
export const narrowQuery = '(max-width: 767px)';
export const isNarrow = () => window.matchMedia(narrowQuery).matches;

const opened = new Map<string, boolean>();

export function sectionOpen(sectionId: string, collapsed: boolean): boolean {
  return opened.get(sectionId) ?? !collapsed;
}

export function rememberSection(sectionId: string, open: boolean): void {
  opened.set(sectionId, open);
}

/** PAGE-2: the layout for this window: the widest breakpoint the window reaches. */
export function layoutForWidth(board: { layouts: { id: string; breakpoint: number }[] }, width: number): string {
  const fitting = board.layouts.filter((layout) => layout.breakpoint <= width);
  return (fitting.length ? fitting[fitting.length - 1] : board.layouts[0]).id;
}
