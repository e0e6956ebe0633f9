/**
 * The pure parts of CLI-9 and ERR-6, without a server: where a place of a board file is written, the path in the
 * file's terms, and the problems of a refused set (the relevant oneOf branch, each problem once).
 */
import { parseFileText, positionIn } from '../../src/boards/files/fileText';
import { pathInFile } from '../../src/cli/remote/fileErrors';
import { ApiError } from '../../src/core/errors';
import { validateOperationInput } from '../../src/core/requestValidation';
import { clockBoardFile } from '../support/boardFiles';

const problemsOfSet = (board: unknown) => {
  try {
    validateOperationInput('applyBoardSet', { body: { managedBy: 'unit', boards: [board] }, query: {} });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { problems: error.data.problems, issues: error.data.issues as unknown[] };
  }
  throw new Error('not refused');
};

describe('CLI-9: places in a board file', () => {
  const yaml = 'name: x\nitems:\n  - id: a\n    kind: clok\n    layouts:\n      - width: wide\n';
  const json = '{\n  "name": "x",\n  "items": [\n    { "id": "a", "kind": "clok" }\n  ]\n}\n';

  it('CLI-9: a property at its key, an element at its start, a missing place at the deepest part the text has', () => {
    expect(positionIn(yaml, ['items', 0, 'kind'])).toEqual({ line: 4, column: 5 });
    expect(positionIn(yaml, ['items', 0, 'layouts', 0, 'width'])).toEqual({ line: 6, column: 9 });
    expect(positionIn(yaml, ['items', 0, 'options', 'x'])).toEqual({ line: 3, column: 5 });
    expect(positionIn(json, ['items', 0, 'kind'])).toEqual({ line: 4, column: 18 });
    expect(positionIn('a: [\n', ['a'])).toBeNull();
  });

  it('CLI-9: syntax errors with line and column, YAML and JSON', () => {
    expect(parseFileText('a.yaml', 'a: 1\na: 2\n')).toEqual({ problem: { position: { line: 2, column: 1 }, message: expect.stringContaining('Map keys must be unique') } });
    expect(parseFileText('a.json', '{\n  "a": 1,\n  x}')).toEqual({ problem: { position: { line: 3, column: 3 }, message: expect.any(String) } });
  });

  it('CLI-9: paths in the file\'s terms', () => {
    expect(pathInFile(['items', 0, 'kind'])).toBe('items[0].kind');
    expect(pathInFile(['items', 2, 'options', 'my option'])).toBe('items[2].options["my option"]');
    expect(pathInFile([])).toBe('');
  });
});

describe('ERR-6: the problems of a refused input', () => {
  it('ERR-6: a oneOf over an app or a list of apps: the one problem of the branch the value was meant for', () => {
    const board: any = clockBoardFile('x');
    board.items[0].apps = { items: [{ name: 'Media' }] };
    const { problems, issues } = problemsOfSet(board);
    expect(issues.length).toBeGreaterThanOrEqual(8);
    expect(problems).toEqual([{ instancePath: '/requestBody/boards/0/items/0/apps/items/0', keyword: 'required', message: "must have required property 'iconUrl'" }]);
  });

  it('ERR-6: an integration by name without its kind, by id with an extra property: the branch with the fewest problems', () => {
    const board: any = clockBoardFile('x');
    board.items[0].integrations = [{ name: 'Jellyfin' }, { id: 'abc', extra: 1 }];
    expect(problemsOfSet(board).problems).toEqual([
      { instancePath: '/requestBody/boards/0/items/0/integrations/0', keyword: 'required', message: "must have required property 'kind'" },
      { instancePath: '/requestBody/boards/0/items/0/integrations/1/extra', keyword: 'additionalProperties', message: 'is not a property this object takes' },
    ]);
  });

  it('ERR-6: two wrong fields are two problems; an enum names its first allowed values and the value given', () => {
    const board: any = clockBoardFile('x');
    board.sections[0].kind = 'nope';
    board.items[0].layouts[0].width = 'wide';
    expect(problemsOfSet(board).problems).toEqual([
      { instancePath: '/requestBody/boards/0/sections/0/kind', keyword: 'enum', message: 'must be one of "category", "empty", "dynamic" (got "nope")' },
      { instancePath: '/requestBody/boards/0/items/0/layouts/0/width', keyword: 'type', message: 'must be integer' },
    ]);
  });
});
