/**
 * Regenerates generated/ from openapi/: the bundled document (generated/openapi.json, served at
 * /api/openapi.json and used for request validation), the openapi-typescript types (generated/api.d.ts) and the
 * offline Redoc reference served at /api/docs, the board page's script (generated/pages/board.js) (generated/docs.html, `redocly build-docs --inlineBundle`: the
 * Redoc bundle is inlined, no CDN; the output is byte-for-byte deterministic for a given document).
 * `--check` regenerates into a temporary folder and fails when generated/ differs (CI uses it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { parse as parseYaml } from 'yaml';
import { contentVersion } from '../src/pages/assets';

const root = path.resolve(__dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const outputs = ['openapi.json', 'api.d.ts', 'docs.html', 'board-file.schema.json', 'pages/board.js', 'pages/scheme.js', 'pages/list.js', 'pages/proposal.js', 'pages/markdown.js', 'pages/live.js', 'client/index.js'];

function generateInto(dir: string): void {
  mkdirSync(path.join(dir, 'pages'), { recursive: true });
  // VIEW-3: marked and DOMPurify in a script of their own, loaded only by a page that shows a notebook.
  buildPageScript('widgets/markdown.ts', path.join(dir, 'pages', 'markdown.js'));
  // PAGE-13: the live views, loaded only by a page that shows a live tile, once it has painted.
  buildPageScript('live/script.ts', path.join(dir, 'pages', 'live.js'));
  // PAGE-7, PAGE-13: the pages that draw a board load those two by their hashed (immutable) URLs.
  const hashedUrl = (file: string) => JSON.stringify(`/assets/${file}?v=${contentVersion(readFileSync(path.join(dir, 'pages', file)))}`);
  const define = { TESSERA_MARKDOWN_SCRIPT: hashedUrl('markdown.js'), TESSERA_LIVE_SCRIPT: hashedUrl('live.js') };
  buildPageScript('board.ts', path.join(dir, 'pages', 'board.js'), define);
  // THEMEVIEW-5: the viewer's colour scheme before the first paint, a script of its own in the board page's <head>.
  buildPageScript('scheme.ts', path.join(dir, 'pages', 'scheme.js'));
  buildPageScript('list.ts', path.join(dir, 'pages', 'list.js'));
  // AGENT-12: the MCP proposal preview page.
  buildPageScript('proposal.ts', path.join(dir, 'pages', 'proposal.js'), define);
  buildClient(path.join(dir, 'client', 'index.js'));
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  execFileSync(bin('redocly'), ['bundle', 'openapi/openapi.yaml', '--ext', 'json', '-o', path.join(dir, 'openapi.json')], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Stable formatting: two-space JSON with a trailing newline.
  const bundled = JSON.parse(readFileSync(path.join(dir, 'openapi.json'), 'utf8'));
  declareCorsHeaders(bundled);
  writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(bundled, null, 2) + '\n');
  writeFileSync(path.join(dir, 'board-file.schema.json'), JSON.stringify(boardFileSchema(bundled), null, 2) + '\n');
  execFileSync(bin('openapi-typescript'), [path.join(dir, 'openapi.json'), '-o', path.join(dir, 'api.d.ts')], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  execFileSync(
    bin('redocly'),
    ['build-docs', path.join(dir, 'openapi.json'), '--inlineBundle', '--lint-config', 'off', '-o', path.join(dir, 'docs.html')],
    { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // The inlined Redoc still points its "API docs by Redocly" badge at logos on cdn.redoc.ly: swap them for inline
  // images of the name so the page makes no request off the instance (the docs browser test blocks and fails on any)
  // and the badge still reads as one (DOCS-1).
  const docs = readFileSync(path.join(dir, 'docs.html'), 'utf8')
    .replace(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini-full\.svg/g, badgeImage('Redocly', 60))
    .replace(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg/g, badgeImage('R', 12));
  writeFileSync(path.join(dir, 'docs.html'), docs);
}

/** CORS-6: the headers every answer may carry, by their own names, from openapi/components/headers.yaml. */
const corsHeaderNames = ['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials'];

/**
 * CORS-6: declares the CORS answer headers on every response of the bundle (each path's and each shared one), as
 * references to one component each: any answer to a listed origin carries them (src/http/cors.ts), so the document
 * says so everywhere without a copy in each response of openapi/.
 */
function declareCorsHeaders(document: { paths: Record<string, Record<string, unknown>>; components: Record<string, Record<string, unknown>> }): void {
  const sources = parseYaml(readFileSync(path.join(root, 'openapi/components/headers.yaml'), 'utf8')) as Record<string, unknown>;
  document.components.headers ??= {};
  for (const name of corsHeaderNames) document.components.headers[name] = sources[name];
  const declare = (responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }> | undefined) => {
    for (const response of Object.values(responses ?? {})) {
      if (response.$ref) continue;
      response.headers ??= {};
      for (const name of corsHeaderNames) response.headers[name] = { $ref: `#/components/headers/${name}` };
    }
  };
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) declare((operation as { responses?: Record<string, { headers?: Record<string, unknown> }> }).responses);
  }
  declare(document.components.responses as Record<string, { headers?: Record<string, unknown> }>);
}

/**
 * A page's script (PAGE-1: the board page; NAV-3: the board list; VIEW-3: the markdown renderer; PAGE-13: the live
 * views), bundled and minified by esbuild from src/pages/client; `define` names the scripts it loads (PAGE-13).
 */
function buildPageScript(entry: string, outfile: string, define: Record<string, string> = {}): void {
  buildSync({
    define,
    entryPoints: [path.join(root, 'src/pages/client', entry)],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2020',
    legalComments: 'none',
    outfile,
    logLevel: 'error',
  });
}

/**
 * The typed client as JavaScript (CLIENT-1): what `tessera-boards/client` loads in a project that installed this package
 * (package.json `exports`; its types are src/client/index.ts), committed so that no build step is needed there.
 */
function buildClient(outfile: string): void {
  buildSync({ entryPoints: [path.join(root, 'src/client/index.ts')], platform: 'node', format: 'cjs', target: 'node20', outfile, logLevel: 'error' });
}

/** A data: URL of an SVG image showing `text` (grey, 14 px high), for an <img> in a JavaScript template string. */
function badgeImage(text: string, width: number): string {
  const svg = `<svg xmlns='http://www.w3.org/2000/svg' width='${width}' height='14'><text x='0' y='11' font-family='sans-serif' font-size='12' fill='%23808080'>${text}</text></svg>`;
  return `data:image/svg+xml,${svg.replace(/</g, '%3C').replace(/>/g, '%3E').replace(/ /g, '%20')}`;
}

/**
 * The JSON Schema of board files (FILE-1), standalone: the document's BoardFile schema with every component schema
 * it reaches moved into `$defs`, served at /api/schemas/board-file.json for editors.
 */
function boardFileSchema(document: { components: { schemas: Record<string, unknown> } }): Record<string, unknown> {
  const schemas = document.components.schemas;
  const defs: Record<string, unknown> = {};
  const prefix = '#/components/schemas/';
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith(prefix)) {
        const name = inner.slice(prefix.length);
        if (!(name in defs)) {
          defs[name] = {};
          defs[name] = rewrite(schemas[name]);
        }
        out.$ref = `#/$defs/${name}`;
      } else if (key !== 'example' && key !== 'discriminator') {
        out[key] = rewrite(inner);
      }
    }
    return out;
  };
  const root = rewrite(schemas.BoardFile) as Record<string, unknown>;
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'Tessera board file', ...root, $defs: defs };
}

const check = process.argv.includes('--check');
if (check) {
  const tmp = mkdtempSync(path.join(tmpdir(), 'tessera-generated-'));
  try {
    generateInto(tmp);
    const stale = outputs.filter(
      (file) => readFileSync(path.join(tmp, file), 'utf8') !== safeRead(path.join(root, 'generated', file)),
    );
    if (stale.length > 0) {
      console.error(`generated/ is stale (${stale.join(', ')}): run \`npm run generate\` and commit the result.`);
      process.exit(1);
    }
    console.log('generated/ is up to date');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
} else {
  generateInto(path.join(root, 'generated'));
  console.log('generated/openapi.json, api.d.ts, docs.html, board-file.schema.json, pages/board.js, scheme.js, list.js, proposal.js, markdown.js, live.js and client/index.js written');
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
