/**
 * CONV-3: nothing of a fixture is dropped silently. Every leaf value of every file of each converter fixture is either
 * in the board files (a string written as it was) or named by the report: an entry at the leaf itself, or at an
 * enclosing object naming a field on the way to the leaf (`widget.fields`, `displayData.rows`), or an enclosing
 * object kept or unmapped as a whole. A converter that starts to drop a field fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { converters, convertHomarrApi, type ConvertInput, type ConvertReport, type ConvertResult, type ReportEntry } from '../../src/convert';
import { parseSource, type PathKey } from '../../src/convert/source';
import { fixtureInput, fixtures } from './support';

interface Leaf {
  path: PathKey[];
  value: unknown;
}

function leaves(value: unknown, at: PathKey[] = []): Leaf[] {
  if (Array.isArray(value)) return value.flatMap((entry, index) => leaves(entry, [...at, index]));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, entry]) => leaves(entry, [...at, key]));
  return [{ path: at, value }];
}

/** The names a report field is made of (`widget.fields` -> widget, fields; `displayData.rows`; `feeds[1]`). */
const fieldNames = (field: string) => field.split(/[.[\]]/).filter((name) => name !== '');

/** The leaves of `file` that neither the output nor the report accounts for, as `file path = value`. */
export function unaccounted(file: string, text: string, output: string, report: ConvertReport): string[] {
  const source = parseSource(file, text);
  const entries = report.entries.filter((entry) => entry.file === file);
  // A whole file reported (homepage's docker.yaml) accounts for all of it.
  if (entries.some((entry) => entry.at === '' && entry.field === '' && entry.status === 'unmapped')) return [];
  const byPlace = new Map<string, ReportEntry[]>();
  for (const entry of entries) byPlace.set(entry.at, [...(byPlace.get(entry.at) ?? []), entry]);
  return leaves(source.data)
    .filter((leaf) => {
      if (typeof leaf.value === 'string' && leaf.value.trim() !== '' && output.includes(JSON.stringify(leaf.value.trim()).slice(1, -1))) return false;
      for (let depth = leaf.path.length; depth >= 0; depth--) {
        const here = byPlace.get(source.where(leaf.path.slice(0, depth))) ?? [];
        if (depth === leaf.path.length && here.length > 0) return false;
        // An entry at this object that names the key leading to the leaf, or (entries are placed at the value of the
        // field they name) the key of this object itself; or this object kept or unmapped as a whole.
        const keys = [leaf.path[depth], leaf.path[depth - 1]].filter((key) => key !== undefined).map(String);
        if (here.some((entry) => fieldNames(entry.field).some((name) => keys.includes(name)) || (entry.field === '' && (entry.status === 'kept' || entry.status === 'unmapped')))) return false;
      }
      return true;
    })
    .map((leaf) => `${file} ${leaf.path.join('.')} = ${JSON.stringify(leaf.value)}`);
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** A fixture directory with its files below it too (the answers of a running Homarr keep boards/ in a folder). */
function nestedInput(name: string): ConvertInput {
  const directory = path.join(fixtures, name);
  return { files: filesUnder(directory), read: (relative) => readFileSync(path.join(directory, relative), 'utf8') };
}

const conversions: Record<string, () => ConvertResult> = {
  homepage: () => converters.homepage(fixtureInput('homepage')),
  dashy: () => converters.dashy(fixtureInput('dashy')),
  glance: () => converters.glance(fixtureInput('glance')),
  homarr: () => converters.homarr(fixtureInput('homarr')),
  // The answers of a running Homarr v1 as `convert homarr --url` keeps them (CONV-7).
  'homarr-api': () => convertHomarrApi(nestedInput('homarr-api')),
};

describe('CONV-3: every leaf of each fixture is mapped or reported', () => {
  it.each(Object.keys(conversions))('CONV-3: %s', (format) => {
    const { boards, report } = conversions[format]();
    const output = JSON.stringify(boards);
    const directory = path.join(fixtures, format);
    const missing = filesUnder(directory).flatMap((file) => unaccounted(file, readFileSync(path.join(directory, file), 'utf8'), output, report));
    expect(missing).toEqual([]);
  });

  it('CONV-3: the walk fails when a converter drops a field silently', () => {
    const report: ConvertReport = { format: 'x', files: ['a.yml'], boards: [], entries: [{ file: 'a.yml', at: '1:1', object: 'A', field: 'name', status: 'mapped', detail: '' }] };
    const text = 'name: A\nnested:\n  dropped: 3\n  written: kept text\n';
    expect(unaccounted('a.yml', text, JSON.stringify({ note: 'kept text' }), report)).toEqual(['a.yml nested.dropped = 3']);
  });
});
