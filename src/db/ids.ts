import { randomBytes } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A server-minted id: 24 lowercase alphanumerics starting with a letter (cuid2-shaped). */
export function newId(): string {
  const bytes = randomBytes(24);
  let id = alphabet[bytes[0] % 26];
  for (let i = 1; i < 24; i++) id += alphabet[bytes[i] % 36];
  return id;
}
