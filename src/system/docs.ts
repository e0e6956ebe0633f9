import { createHash } from 'node:crypto';
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

/** The text of each inline `<script>` of a page, in order (a script's own text never holds `</script>`). */
function inlineScripts(html: string): string[] {
  const scripts: string[] = [];
  let at = 0;
  for (;;) {
    const open = html.indexOf('<script', at);
    if (open < 0) return scripts;
    const start = html.indexOf('>', open) + 1;
    const end = html.indexOf('</script>', start);
    if (start === 0 || end < 0) return scripts;
    if (!/\ssrc=/i.test(html.slice(open, start))) scripts.push(html.slice(start, end));
    at = end + '</script>'.length;
  }
}

let securityHeaders: Record<string, string> | null = null;

/**
 * HTTP-11: the reference's Content-Security-Policy. It runs only its own inline scripts (named by their hashes), loads
 * nothing from elsewhere (images and fonts inlined as data:), evaluates no strings (the search index probes
 * `Function` for a worker and, refused, searches on the page's own thread) and keeps the inline styles Redoc's styled
 * components write.
 */
export function apiDocsSecurityHeaders(): Record<string, string> {
  securityHeaders ??= {
    'Content-Security-Policy': [
      "default-src 'none'",
      `script-src ${inlineScripts(apiDocsHtml())
        .map((text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`)
        .join(' ')}`,
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "font-src 'self' data:",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'Referrer-Policy': 'same-origin',
  };
  return securityHeaders;
}
