/**
 * DOCS-3: every schema of the contract has one name. Two component files defining the same name make the bundler
 * keep both (`BoardCreator` and `BoardCreator-2`), and code generators then emit `BoardCreator2`. No server.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

const root = path.resolve(__dirname, '../..');

it('DOCS-3: no schema name is defined twice across openapi/components, and the bundle renames none', () => {
  const dir = path.join(root, 'openapi/components');
  const definedIn = new Map<string, string[]>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.yaml'))) {
    for (const name of Object.keys(parseYaml(readFileSync(path.join(dir, file), 'utf8')) ?? {})) definedIn.set(name, [...(definedIn.get(name) ?? []), file]);
  }
  expect([...definedIn].filter(([, files]) => files.length > 1)).toEqual([]);
  const bundled = JSON.parse(readFileSync(path.join(root, 'generated/openapi.json'), 'utf8'));
  expect(Object.keys(bundled.components.schemas).filter((name) => /-\d+$/.test(name))).toEqual([]);
});
