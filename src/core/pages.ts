/**
 * Pages of the list routes that can grow (HTTP-8). A call may send `limit` and `cursor`; the answer is still the plain
 * array of the list's items, and when more follow, the `Link: <…>; rel="next"` and `Tessera-Next-Cursor` headers say
 * how to ask for them. A call without either answers the whole list, as it always did.
 *
 * A cursor is the position of the last item of a page in the list's order (for example `[createdMicros, id]`),
 * encoded so that clients treat it as opaque; the next page starts after that position, so items created or deleted
 * in between never make a page repeat or skip the items that stayed.
 */
import { badRequest } from './errors';

export interface PageRequest {
  limit?: number;
  cursor?: string;
}

/** A position in a list's order: the values the list is sorted by, last item first to last. */
export type Position = readonly (string | number)[];

export interface Page<T> {
  items: T[];
  /** The cursor of the next page, null on the last. */
  nextCursor: string | null;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** The position a cursor names; 400 `Invalid cursor` for a cursor that is not one of this list's. */
export function decodeCursor(cursor: string, shape: readonly ('string' | 'number')[]): Position {
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    position = undefined;
  }
  const fits = Array.isArray(position) && position.length === shape.length && position.every((value, i) => typeof value === shape[i]);
  if (!fits) throw badRequest('Invalid cursor', { cursor });
  return position as Position;
}

/** The page of rows a query read with `limit + 1` rows at most: one more than asked says that another page follows. */
export function pageOfRows<T>(rows: T[], limit: number | undefined, positionOf: (item: T) => Position): Page<T> {
  if (limit === undefined || rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(positionOf(items[items.length - 1])) };
}

/** A page of a list held in memory, in the order `compare` gives positions: the items after the cursor's, at most `limit`. */
export function pageOfList<T>(
  list: T[],
  request: PageRequest,
  shape: readonly ('string' | 'number')[],
  positionOf: (item: T) => Position,
  compare: (a: Position, b: Position) => number,
): Page<T> {
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor, shape);
  const rest = list.filter((item) => after === undefined || compare(positionOf(item), after) > 0);
  rest.sort((a, b) => compare(positionOf(a), positionOf(b)));
  return pageOfRows(request.limit === undefined ? rest : rest.slice(0, request.limit + 1), request.limit, positionOf);
}

/**
 * The headers that name the next page: the same request (path and query) with the next cursor, as a `Link` with
 * `rel="next"` (RFC 8288) and the cursor alone in `Tessera-Next-Cursor`. None on the last page.
 */
export function nextPageHeaders(path: string, query: Record<string, unknown>, nextCursor: string | null): Record<string, string> {
  if (nextCursor === null) return {};
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && name !== 'cursor') params.set(name, String(value));
  }
  params.set('cursor', nextCursor);
  return { Link: `<${path}?${params}>; rel="next"`, 'Tessera-Next-Cursor': nextCursor };
}
