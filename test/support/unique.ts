import { randomBytes } from 'node:crypto';

let counter = 0;

/**
 * An id or name no other test (or test run) uses: the prefix, a counter and 10 random hex digits. Fits the Id schema
 * and board names (letters, digits, `-`, `_`) whenever the prefix does.
 */
export const unique = (prefix = 'id') => `${prefix}${(counter++).toString(36)}${randomBytes(5).toString('hex')}`;
