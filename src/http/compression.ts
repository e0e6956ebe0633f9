/**
 * Response compression (HTTP-7): a body of at least `compressionThreshold` bytes is sent brotli- or gzip-compressed
 * when the request's `Accept-Encoding` accepts one of them; every response with a body says `Vary: Accept-Encoding`.
 */
import type { ContentCoding } from '../core/contentCoding';

/** Smaller bodies are sent as they are: compressing them saves less than it costs. */
export const compressionThreshold = 1024;

/**
 * The coding to answer with, by the q-values of `Accept-Encoding` (RFC 9110 12.5.3): the best accepted of br and gzip,
 * br on a tie; `*` stands for codings not named; q=0 refuses. Null for identity.
 */
export function negotiateCoding(acceptEncoding: string | string[] | undefined): ContentCoding | null {
  if (acceptEncoding === undefined) return null;
  const weights = new Map<string, number>();
  for (const entry of (Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding).split(',')) {
    const [name, ...params] = entry.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((param) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(param)).find(Boolean);
    weights.set(name, q ? Number(q[1]) : 1);
  }
  const weightOf = (coding: ContentCoding) => weights.get(coding) ?? (coding === 'gzip' ? weights.get('x-gzip') : undefined) ?? weights.get('*') ?? 0;
  const br = weightOf('br');
  const gzip = weightOf('gzip');
  if (br <= 0 && gzip <= 0) return null;
  return br >= gzip ? 'br' : 'gzip';
}
