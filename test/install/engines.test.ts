/**
 * RUN-3: the Node versions package.json declares are the ones every installed package supports, so a clean install
 * prints no EBADENGINE: each lowest version of the declared range (and the one running) satisfies the `engines` of
 * every package of the lockfile, and the README states the same range.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const semver = require('semver') as { satisfies(version: string, range: string): boolean; minVersion(range: string): { version: string } | null };

const root = path.resolve(__dirname, '../..');
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const declared: string = packageJson.engines.node;

/** The lowest version of each `||` alternative of the declared range. */
const lowestVersions = declared.split('||').map((alternative) => semver.minVersion(alternative.trim())!.version);

describe('RUN-3: engines', () => {
  it('the declared range starts where every locked package works (the ref-parser openapi-backend pulls included)', () => {
    expect(lowestVersions).toEqual(['20.19.0', '22.13.0', '24.0.0']);
    const refused: string[] = [];
    for (const [location, meta] of Object.entries<{ engines?: { node?: string } | string[] }>(lock.packages)) {
      const range = !Array.isArray(meta.engines) ? meta.engines?.node : undefined;
      if (!range || location === '') continue;
      for (const version of [...lowestVersions, process.version.slice(1)]) {
        if (!semver.satisfies(version, range)) refused.push(`${location} (${range}) refuses ${version}`);
      }
    }
    expect(refused).toEqual([]);
    expect(lock.packages['node_modules/openapi-backend/node_modules/@apidevtools/json-schema-ref-parser']?.version ?? lock.packages['node_modules/@apidevtools/json-schema-ref-parser']?.version).toBe('14.2.1');
  });

  it('the README states the same versions', () => {
    expect(readFileSync(path.join(root, 'README.md'), 'utf8')).toContain('Node.js 20.19+ (20.x), 22.13+ or 24+');
  });
});
