import { fillPlaceholders, integrationRequestUrl, normalizeCustomApiInput, placeholdersOf } from '../../src/customApis/definition';
import { formatFieldValue } from '../../src/customApis/format';
import { evaluateJsonPath, parseJsonPath } from '../../src/customApis/jsonPath';
import { maxListValues, maxTextLength, pickCustomApiData } from '../../src/customApis/pick';
import { ApiError } from '../../src/core/errors';

const at = (root: unknown, path: string) => {
  const steps = parseJsonPath(path);
  if ('error' in steps) throw new Error(steps.error);
  return evaluateJsonPath(root, steps);
};

describe('CAPI-4: the JSON path subset', () => {
  const doc = { a: { b: 1, 'odd key': 'x', list: [{ b: 'first' }, { b: 'second' }, { c: 3 }] }, items: [{ name: 'n1' }, { name: 'n2' }, { other: true }], $weird: 5 };

  it('CAPI-4: $.a.b, $.a[0].b, $.items[*].name, bracketed names and the root', () => {
    expect(at(doc, '$.a.b')).toEqual({ found: true, value: 1 });
    expect(at(doc, '$.a.list[0].b')).toEqual({ found: true, value: 'first' });
    expect(at(doc, '$.items[*].name')).toEqual({ found: true, value: ['n1', 'n2'] });
    expect(at(doc, "$.a['odd key']")).toEqual({ found: true, value: 'x' });
    expect(at(doc, '$.a["odd key"]')).toEqual({ found: true, value: 'x' });
    expect(at(doc, '$.$weird')).toEqual({ found: true, value: 5 });
    expect(at(doc, '$')).toEqual({ found: true, value: doc });
    expect(at([[1, 2], [3]], '$[*][*]')).toEqual({ found: true, value: [1, 2, 3] });
    expect(at({ x: { p: 1, q: 2 } }, '$.x[*]')).toEqual({ found: true, value: [1, 2] });
  });

  it('CAPI-4: a path that finds nothing is not found (null), never an error', () => {
    expect(at(doc, '$.a.missing')).toEqual({ found: false });
    expect(at(doc, '$.a.b.c')).toEqual({ found: false });
    expect(at(doc, '$.a.list[9]')).toEqual({ found: false });
    expect(at(doc, '$.a[0]')).toEqual({ found: false });
    expect(at(doc, '$.items[*].missing')).toEqual({ found: true, value: [] });
    expect(at('text', '$.length')).toEqual({ found: false });
    expect(at({ a: null }, '$.a')).toEqual({ found: true, value: null });
    expect(at({}, '$.constructor')).toEqual({ found: false });
    expect(at({}, '$.__proto__')).toEqual({ found: false });
  });

  it.each(['a.b', '$..b', '$.a[?(@.b)]', '$.a[-1]', '$.a[0:2]', '$.', '$.1a', '$[a]', "$['unterminated]", `$.${'a'.repeat(300)}`])('CAPI-4: refuses %s with a reason', (path) => {
    expect(parseJsonPath(path)).toEqual({ error: expect.any(String) });
  });
});

describe('CAPI-5: formats', () => {
  const now = new Date('2026-11-28T12:00:00Z');
  it.each([
    [1234567.891, 'number', '1\u2009234\u2009567.89'],
    [-1000, 'number', '-1\u2009000'],
    ['42', 'number', '42'],
    [42.56, 'percent', '42.6 %'],
    [0, 'bytes', '0 B'],
    [1536, 'bytes', '1.5 KiB'],
    [5 * 1024 ** 3, 'bytes', '5.0 GiB'],
    [93784, 'duration', '1 d 2 h'],
    [200, 'duration', '3 min 20 s'],
    [45, 'duration', '45 s'],
    [0, 'duration', '0 s'],
    ['2026-11-27T08:30:00Z', 'date', '2026-11-27 08:30'],
    [1795900000, 'date', '2026-11-28 21:06'],
    ['2026-11-28T11:55:00Z', 'relativeDate', '5 min ago'],
    ['2026-11-28T14:00:00Z', 'relativeDate', 'in 2 h'],
    [true, 'text', 'true'],
    ['<b>x</b>', 'text', '<b>x</b>'],
    ['n/a', 'bytes', 'n/a'],
    ['not a date', 'date', 'not a date'],
    [null, 'number', '–'],
    [['a', 'b'], 'text', 'a, b'],
    [[1024, 2048], 'bytes', '1.0 KiB, 2.0 KiB'],
  ] as const)('CAPI-5: %j as %s is %j', (value, format, shown) => {
    expect(formatFieldValue(value, format, now)).toBe(shown);
  });
});

describe('CAPI-2, CAPI-3: definition rules', () => {
  it('CAPI-2: a path on the integration is appended to its URL and never leaves its origin', () => {
    expect(integrationRequestUrl('http://svc:8080/base/', '/api/x?y=1')).toBe('http://svc:8080/base/api/x?y=1');
    expect(integrationRequestUrl('http://svc:8080', 'api/x')).toBe('http://svc:8080/api/x');
    expect(integrationRequestUrl('http://svc:8080/base?token=1', 'api')).toBe('http://svc:8080/base/api?token=1');
    expect(integrationRequestUrl('http://svc:8080/base', '../../x')).toBe('http://svc:8080/x');
    expect(integrationRequestUrl('http://svc:8080', '//evil.example/x')).toBeNull();
    expect(integrationRequestUrl('http://svc:8080', 'http://evil.example/x')).toBeNull();
    expect(integrationRequestUrl('http://svc:8080', 'javascript:alert(1)')).toBeNull();
  });

  it('CAPI-3: placeholders name secret kinds; they are filled at request time, a missing secret named', () => {
    expect(placeholdersOf('Bearer {{ apiKey }} {{username}}')).toEqual({ kinds: ['apiKey', 'username'], unknown: [] });
    expect(placeholdersOf('{{nope}} {{apiKey')).toEqual({ kinds: [], unknown: ['{{nope}}', '{{'] });
    expect(fillPlaceholders('Bearer {{apiKey}}', { apiKey: 's3cr3t' })).toEqual({ value: 'Bearer s3cr3t' });
    expect(fillPlaceholders('{{username}}:{{password}}', { username: 'u' })).toEqual({ missing: 'password' });
    expect(fillPlaceholders('{{apiKey}}', { apiKey: '$& $1 {{password}}' })).toEqual({ value: '$& $1 {{password}}' });
  });

  it('CAPI-2: defaults and trimming; every bad field is named', () => {
    expect(normalizeCustomApiInput({ name: ' A ', url: ' https://x.example/a ', fields: [{ label: ' L ', path: '$.a' }], list: { path: '$.r' } })).toEqual({
      name: 'A', integrationId: null, url: 'https://x.example/a', method: 'GET', body: null, headers: [], fields: [{ label: 'L', path: '$.a', format: 'text' }], list: { path: '$.r', limit: 10 },
    });
    let error: unknown;
    try {
      normalizeCustomApiInput({ name: 'A', url: '/x', body: '{}', headers: [{ name: 'A', value: '{{apiKey}}' }, { name: 'a', value: '' }], fields: [{ label: 'x', path: 'x' }] });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).data.issues).toEqual([
      expect.objectContaining({ instancePath: '/requestBody/url' }),
      expect.objectContaining({ instancePath: '/requestBody/body' }),
      expect.objectContaining({ instancePath: '/requestBody/headers/0/value' }),
      expect.objectContaining({ instancePath: '/requestBody/headers/1/name' }),
      expect.objectContaining({ instancePath: '/requestBody/fields/0/path' }),
    ]);
  });
});

describe('CAPI-6: picking', () => {
  const definition = { id: 'd1', name: 'D', fields: [{ label: 'A', path: '$.a', format: 'number' as const }, { label: 'All', path: '$.l[*]', format: 'text' as const }], list: null };

  it('CAPI-6: scalars as they are; objects and nested lists are null; long text and lists are cut', () => {
    expect((pickCustomApiData(definition, { a: { deep: 1 }, l: [1, 'x', { o: 1 }, [2], null] }) as { fields: { value: unknown }[] }).fields.map((f) => f.value)).toEqual([null, [1, 'x', null, null, null]]);
    const long = pickCustomApiData(definition, { a: 'y'.repeat(maxTextLength + 10), l: Array.from({ length: maxListValues + 5 }, (_, i) => i) });
    expect(long.mode === 'fields' && long.fields[0]!.value).toHaveLength(maxTextLength);
    expect(long.mode === 'fields' && long.fields[1]!.value).toHaveLength(maxListValues);
  });

  it('CAPI-6: list mode over a non-list is null rows; an answer that is itself the list works with $', () => {
    const listed = { ...definition, list: { path: '$', limit: 1 }, fields: [{ label: 'N', path: '$.n', format: 'text' as const }] };
    expect(pickCustomApiData(listed, [{ n: 1 }, { n: 2 }])).toMatchObject({ mode: 'list', rows: [[1]], total: 2 });
    expect(pickCustomApiData(listed, { n: 1 })).toMatchObject({ mode: 'list', rows: null, total: null });
  });
});
