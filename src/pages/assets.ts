/**
 * The pages' scripts and style sheet (PAGE-7): read once, each with a content hash. The pages name them by a URL with
 * that hash (`/assets/board.js?v=<hash>`), which is answered `Cache-Control: public, max-age=31536000, immutable`: a
 * new build has new hashes, so a browser never asks again for what it holds; the scripts the board page loads only when
 * it needs them (markdown.js, live.js: PAGE-13) are named by such URLs inside board.js (`npm run generate` writes them
 * there, with contentVersion). Any other request of an asset (no or an old `v`) is revalidated by its ETag:
 * If-None-Match answers 304 without the file.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EncodedForms } from '../core/contentCoding';

export interface PageAsset {
  text: string;
  /** The file's bytes, for an image (PWA-1: Tessera's icons); null for a text file. */
  bytes: Buffer | null;
  type: string;
  /** The strong ETag, `"<hash>"`. */
  etag: string;
  /** The content hash the URLs carry as `v`: 16 lower-case hex digits. */
  version: string;
  /** A text file's compressed forms (HTTP-7), each made once for the process: the file never changes under it. */
  forms: EncodedForms | null;
}

const files: Record<string, { file: string; type: string }> = {
  'board.js': { file: path.join(__dirname, '../../generated/pages/board.js'), type: 'text/javascript; charset=utf-8' },
  'scheme.js': { file: path.join(__dirname, '../../generated/pages/scheme.js'), type: 'text/javascript; charset=utf-8' },
  'list.js': { file: path.join(__dirname, '../../generated/pages/list.js'), type: 'text/javascript; charset=utf-8' },
  'proposal.js': { file: path.join(__dirname, '../../generated/pages/proposal.js'), type: 'text/javascript; charset=utf-8' },
  'markdown.js': { file: path.join(__dirname, '../../generated/pages/markdown.js'), type: 'text/javascript; charset=utf-8' },
  'live.js': { file: path.join(__dirname, '../../generated/pages/live.js'), type: 'text/javascript; charset=utf-8' },
  'board.css': { file: path.join(__dirname, 'client/board.css'), type: 'text/css; charset=utf-8' },
  'tessera-192.png': { file: path.join(__dirname, 'icons/tessera-192.png'), type: 'image/png' },
  'tessera-512.png': { file: path.join(__dirname, 'icons/tessera-512.png'), type: 'image/png' },
};

const loaded = new Map<string, PageAsset>();

/** PAGE-7: the content hash of a file's bytes that its URLs carry as `v`. */
export const contentVersion = (bytes: Buffer | Uint8Array) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/** The asset named `name` (read and hashed on first use), or null for a name that is none. */
export function pageAsset(name: string): PageAsset | null {
  const known = loaded.get(name);
  if (known) return known;
  const source = Object.hasOwn(files, name) ? files[name] : undefined;
  if (!source) return null;
  const raw = readFileSync(source.file);
  const binary = source.type.startsWith('image/');
  const version = contentVersion(raw);
  const asset = {
    text: binary ? '' : raw.toString('utf8'),
    bytes: binary ? raw : null,
    type: source.type,
    etag: `"${version}"`,
    version,
    forms: binary ? null : new EncodedForms(() => raw),
  };
  loaded.set(name, asset);
  return asset;
}

/** PAGE-7: the URL the pages load `name` by, with its content hash. */
export function assetUrl(name: 'board.js' | 'scheme.js' | 'list.js' | 'proposal.js' | 'board.css' | 'tessera-192.png' | 'tessera-512.png'): string {
  return `/assets/${name}?v=${pageAsset(name)!.version}`;
}

/** PAGE-7: a year and immutable for the URL of the current content; else revalidated each time by the ETag. */
export const assetCacheControl = (asset: PageAsset, version: string | undefined) => (version === asset.version ? 'public, max-age=31536000, immutable' : 'no-cache');
