import { assertStorableInput, isStorableText, pointerStep, unstorableTextPath } from '../../src/http/requestInput';
import { ApiError } from '../../src/core/errors';

/** The storable-text check on its own, without HTTP. */
describe('unstorableTextPath', () => {
  it.each([
    ['a plain value', { a: 'ok', b: [1, null, true, { c: 'é😀' }] }, null],
    ['a NUL in a nested value', { sections: [{ name: 'x' }, { name: 'a\u0000b' }] }, '/sections/1/name'],
    ['a lone high surrogate', { sections: [{ name: 'a\ud800' }] }, '/sections/0/name'],
    ['a lone low surrogate in an array', { list: ['ok', '\udc00x'] }, '/list/1'],
    ['a reversed surrogate pair', { a: '\udc00\ud800' }, '/a'],
    ['a bad key', { options: { ['k\ud800']: 1 } }, '/options/k\ud800'],
    ['a NUL key', { options: { ['\u0000']: 'v' } }, '/options/\u0000'],
    ['a key with / and ~', { 'a/b': { '~c': 'x\u0000' } }, '/a~1b/~0c'],
    ['a root string', 'a\u0000', ''],
    ['a root number', 12, null],
  ])('%s', (_label, value, path) => {
    expect(unstorableTextPath(value)).toBe(path);
  });

  it('walks hostile nesting without overflowing the stack', () => {
    let deep: unknown = 'bad\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(unstorableTextPath(deep)).toBe('/0'.repeat(200_000));
  });

  it('accepts well-formed text, including surrogate pairs', () => {
    expect(isStorableText('\ud83d\ude00')).toBe(true);
    expect(isStorableText('\ud83d')).toBe(false);
    expect(pointerStep('a/~')).toBe('/a~1~0');
  });
});

describe('assertStorableInput', () => {
  const refusal = (input: Parameters<typeof assertStorableInput>[0]) => {
    try {
      assertStorableInput(input);
    } catch (error) {
      return error instanceof ApiError ? { status: error.status, message: error.message, data: error.data } : error;
    }
    return null;
  };

  it('names the body path, the query or the path parameter', () => {
    expect(refusal({ body: { name: 'a\ud800' }, query: {}, params: undefined })).toEqual({
      status: 400,
      message: 'Invalid text at /name: lone UTF-16 surrogates and NUL characters cannot be stored',
      data: { path: '/name' },
    });
    expect(refusal({ body: undefined, query: { search: ['ok', 'a\u0000'] }, params: undefined })).toEqual({
      status: 400,
      message: 'Invalid text in query parameter search: lone UTF-16 surrogates and NUL characters cannot be stored',
      data: { in: 'query', path: '/search/1' },
    });
    expect(refusal({ body: undefined, query: {}, params: { id: 'a\u0000' } })).toEqual({
      status: 400,
      message: 'Invalid text in path parameter id: lone UTF-16 surrogates and NUL characters cannot be stored',
      data: { in: 'path', path: '/id' },
    });
    expect(refusal({ body: { a: ['ok'] }, query: { q: 'x' }, params: { id: 'y' } })).toBeNull();
  });
});
