/**
 * Regenerates generated/ from openapi/: the bundled document (generated/openapi.json, served at
 * /api/openapi.json and used for request validation), the openapi-typescript types (generated/api.d.ts) and the
 * offline Redoc reference served at /api/docs (generated/docs.html, `redocly build-docs --inlineBundle`: the
 * Redoc bundle is inlined, no CDN; the output is byte-for-byte deterministic for a given document).
 * `--check` regenerates into a temporary folder and fails when generated/ differs (CI uses it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const outputs = ['openapi.json', 'api.d.ts', 'docs.html', 'board-file.schema.json'];

function generateInto(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  execFileSync(bin('redocly'), ['bundle', 'openapi/openapi.yaml', '--ext', 'json', '-o', path.join(dir, 'openapi.json')], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Stable formatting: two-space JSON with a trailing newline.
  const bundled = JSON.parse(readFileSync(path.join(dir, 'openapi.json'), 'utf8'));
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
  // The inlined Redoc still points its "API docs by Redocly" logo at cdn.redoc.ly: swap it for an inline blank
  // image so the page makes no request off the instance (the docs browser test blocks and fails on any).
  const docs = readFileSync(path.join(dir, 'docs.html'), 'utf8').replace(
    /https:\/\/cdn\.redoc\.ly\/[A-Za-z0-9/._-]+\.svg/g,
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E",
  );
  writeFileSync(path.join(dir, 'docs.html'), docs);
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
  console.log('generated/openapi.json, api.d.ts, docs.html and board-file.schema.json written');
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
