import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EncodedForms } from '../core/contentCoding';

/** The offline Redoc reference built by `npm run generate` (redocly build-docs --inlineBundle). */
export const apiDocsFile = path.resolve(__dirname, '../../generated/docs.html');

let cached: string | null = null;

/** Read once, then served from memory (about 2.5 MB). */
export function apiDocsHtml(): string {
  cached ??= readFileSync(apiDocsFile, 'utf8');
  return cached;
}

/** The page's compressed forms, each made once (HTTP-7). */
export const apiDocsForms = new EncodedForms(() => Buffer.from(apiDocsHtml()));
