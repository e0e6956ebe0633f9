import { badRequest } from '../core/errors';

declare global {
  interface String {
    /** ES2024 (Node 20): no lone surrogate. Not in this project's TypeScript lib. */
    isWellFormed(): boolean;
  }
}

/** One step of a JSON pointer (RFC 6901): `~` and `/` escaped. */
export const pointerStep = (key: string | number) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** Whether PostgreSQL can store the string as text or inside jsonb: no NUL character, no lone UTF-16 surrogate. */
export const isStorableText = (text: string) => text.isWellFormed() && !text.includes('\u0000');

/**
 * The JSON pointer of the first string value or object key in `value` that PostgreSQL cannot store, or null.
 * Iterative, so hostile nesting cannot overflow the stack; the pointer is built only for the offending string.
 */
export function unstorableTextPath(value: unknown): string | null {
  if (typeof value === 'string') return isStorableText(value) ? null : '';
  if (typeof value !== 'object' || value === null) return null;
  const stack: { node: unknown; parent: number; step: string | number }[] = [{ node: value, parent: -1, step: '' }];
  const pointer = (index: number, last?: string | number): string => {
    let path = last === undefined ? '' : pointerStep(last);
    for (let i = index; i > 0; i = stack[i].parent) path = pointerStep(stack[i].step) + path;
    return path;
  };
  // Entries stay on the stack (the walk moves a cursor over it) so that an offending string's parents are known.
  for (let cursor = 0; cursor < stack.length; cursor++) {
    const node = stack[cursor].node as Record<string, unknown> | unknown[];
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const inner = node[i];
        if (typeof inner === 'string') {
          if (!isStorableText(inner)) return pointer(cursor, i);
        } else if (typeof inner === 'object' && inner !== null) stack.push({ node: inner, parent: cursor, step: i });
      }
    } else {
      for (const key in node) {
        if (!isStorableText(key)) return pointer(cursor, key);
        const inner = node[key];
        if (typeof inner === 'string') {
          if (!isStorableText(inner)) return pointer(cursor, key);
        } else if (typeof inner === 'object' && inner !== null) stack.push({ node: inner, parent: cursor, step: key });
      }
    }
  }
  return null;
}

/**
 * Parsed JSON bodies whose text had no `\u0000` and no `\uD800`..`\uDFFF` escape. Only those escapes put NUL or a
 * lone surrogate in a parsed JSON value (raw control characters are not JSON, and decoding never yields a lone
 * surrogate), so these need no walk: a whole-board PUT holds thousands of strings.
 */
const storableBodies = new WeakSet<object>();

const riskyEscape = /\\u(?:0000|[dD][89a-fA-F])/;

/** Remembers a body parsed from `text` as storable when the text shows it is (see storableBodies). */
export function noteParsedBody(body: unknown, text: string): void {
  if (typeof body === 'object' && body !== null && !riskyEscape.test(text)) storableBodies.add(body);
}

const unstorable = 'lone UTF-16 surrogates and NUL characters cannot be stored';

/**
 * 400 when a string of the request (a body value or key at any depth, a query or path parameter) cannot be stored
 * by PostgreSQL: one check for every route, before request validation, rather than one per stored field.
 */
export function assertStorableInput(input: { body: unknown; query: unknown; params: unknown }): void {
  const known = typeof input.body === 'object' && input.body !== null && storableBodies.has(input.body);
  const inBody = known ? null : unstorableTextPath(input.body);
  if (inBody !== null) throw badRequest(`Invalid text${inBody ? ` at ${inBody}` : ''}: ${unstorable}`, { path: inBody });
  for (const where of ['query', 'path'] as const) {
    const path = unstorableTextPath(where === 'query' ? input.query : input.params);
    if (path !== null) throw badRequest(`Invalid text in ${where} parameter ${path.split('/')[1]}: ${unstorable}`, { in: where, path });
  }
}
