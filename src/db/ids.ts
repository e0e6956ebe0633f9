import { createHash, randomBytes } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** 24 lowercase alphanumerics starting with a letter (cuid2-shaped), from 24 bytes. */
function idOf(bytes: Uint8Array): string {
  let id = alphabet[bytes[0] % 26];
  for (let i = 1; i < 24; i++) id += alphabet[bytes[i] % 36];
  return id;
}

/** A server-minted id: 24 lowercase alphanumerics starting with a letter (cuid2-shaped). */
export function newId(): string {
  return idOf(randomBytes(24));
}

/**
 * An id of the same shape as `newId`'s, derived from `parts` (a SHA-256 of them): the same parts always give the same
 * id. FILE-4: the id an import gives a foreign element on a board is derived from the board's id and the element's id
 * in the file, so importing the same file again maps it to the same id.
 */
export function derivedId(...parts: string[]): string {
  return idOf(createHash('sha256').update(parts.join('\n')).digest());
}
