import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The offline Redoc reference built by `npm run generate` (redocly build-docs --inlineBundle). */
export const apiDocsFile = path.resolve(__dirname, '../../generated/docs.html');

let cached: string | null = null;

/** Read once, then served from memory (about 2.5 MB). */
export function apiDocsHtml(): string {
  cached ??= readFileSync(apiDocsFile, 'utf8');
  return cached;
}
