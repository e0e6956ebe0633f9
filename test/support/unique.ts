import { randomBytes } from 'node:crypto';

/** A name no other test run uses: `prefix-` and 8 random hex digits. */
export const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
