import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { expectStatus, runTessera, type CliResult } from '../support/cli';
import { useTestServer, type TestServer } from '../support/server';
import { createActor } from '../support/actors';
import { unique } from '../support/unique';
import { expectOk } from '../boards-document/helpers';
import { clockBoardFile, everyKindBoard } from '../support/boardFiles';
import { widgetKinds } from '../../src/widgets/registry';

const boardFile = (name: string, clocks = 2) => clockBoardFile(name, clocks);

const server = useTestServer();
const slow = 180_000;

let workDir: string;
beforeAll(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-fleet-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function cliEnv(extra: Record<string, string> = {}, connect = true): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: path.join(workDir, 'data'), TESSERA_CONFIG: path.join(workDir, 'no-config.yaml') };
  for (const name of ['DATABASE_URL', 'TESSERA_URL', 'TESSERA_API_KEY', 'XDG_CONFIG_HOME']) delete env[name];
  if (connect) Object.assign(env, { TESSERA_URL: server.directUrl, TESSERA_API_KEY: server.adminKey });
  return { ...env, ...extra };
}

const tessera = (args: string[], options: { env?: Record<string, string>; connect?: boolean; input?: string } = {}): Promise<CliResult> =>
  runTessera(args, cliEnv(options.env, options.connect ?? true), { input: options.input });

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.name=CI', '-c', 'user.email=ci@example.com', ...args], { encoding: 'utf8' }).trim();

/** A git work tree holding `count` board files, committed. */
function repository(count: number) {
  const dir = path.join(workDir, unique('repo'));
  mkdirSync(dir);
  git(dir, 'init', '-q');
  const names = Array.from({ length: count }, () => unique('fleet-'));
  for (const name of names) writeFileSync(path.join(dir, `${name}.yaml`), toYaml(boardFile(name)));
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'Add the boards');
  return { dir, names };
}

const boardByName = async (name: string) => server.db('boards').whereRaw('lower(name) = lower(?)', [name]).first('id', 'version', 'managedBy');

describe('tessera plan, apply (FLEET-7, FLEET-8)', () => {
  it(
    'FLEET-7: plan exits 2 with changes, apply -y writes all, plan again exits 0; history shows the commit; prune deletes a removed file\'s board',
    async () => {
      const label = unique('gitops-');
      const { dir, names } = repository(3);
      const plan = await tessera(['plan', '-f', dir, '--managed-by', label]);
      expectStatus(plan, 2);
      expect(plan.stdout).toContain(`Plan for ${label}: 3 to create, 0 to update, 0 to delete, 0 unchanged.`);
      for (const name of names) expect(await boardByName(name)).toBeUndefined();

      const refused = await tessera(['apply', '-f', dir, '--managed-by', label]);
      expectStatus(refused, 1);
      expect(refused.stderr).toContain('Refusing to apply without confirmation');

      const applied = await tessera(['apply', '-f', dir, '--managed-by', label, '-y']);
      expectStatus(applied, 0);
      const commit = git(dir, 'rev-parse', 'HEAD');
      expect(applied.stdout).toContain(`Applied ${label} at ${commit.slice(0, 12)}: 3 created, 0 updated, 0 deleted, 0 unchanged.`);
      const board = await boardByName(names[0]);
      expect(board.managedBy).toBe(label);
      const [entry] = expectOk(await server.call('GET', `/api/boards/${board.id}/history`)).entries;
      expect(entry.origin).toEqual({ managedBy: label, commit, message: 'Add the boards' });

      const again = await tessera(['plan', '-f', dir, '--managed-by', label]);
      expectStatus(again, 0);
      expect(again.stdout).toContain(`No changes: 3 boards of ${label} already match the files.`);

      unlinkSync(path.join(dir, `${names[2]}.yaml`));
      git(dir, 'commit', '-q', '-am', 'Drop a board');
      const prunePlan = await tessera(['plan', '-f', dir, '--managed-by', label, '--prune', '-o', 'json']);
      expectStatus(prunePlan, 2);
      expect(JSON.parse(prunePlan.stdout).boards.find((b: any) => b.name === names[2]).action).toBe('delete');
      expectStatus(await tessera(['apply', '-f', dir, '--managed-by', label, '--prune', '-y']), 0);
      expect(await boardByName(names[2])).toBeUndefined();
      expect(await boardByName(names[1])).toBeDefined();
    },
    slow,
  );

  it(
    'FLEET-8: --message is recorded; without --managed-by the label is the work tree\'s name',
    async () => {
      const { dir, names } = repository(1);
      expectStatus(await tessera(['apply', '-f', dir, '-y', '--message', 'Release 1.2']), 0);
      const board = await boardByName(names[0]);
      expect(board.managedBy).toBe(path.basename(dir));
      const [entry] = expectOk(await server.call('GET', `/api/boards/${board.id}/history`)).entries;
      expect(entry.origin).toMatchObject({ commit: git(dir, 'rev-parse', 'HEAD'), message: 'Release 1.2' });
      // The history table shows the commit and its message too, not only --json.
      const history = await tessera(['boards', 'history', names[0]]);
      expectStatus(history, 0);
      expect(history.stdout).toMatch(/^REVISION\s+VERSION\s+AT\s+OPERATION\s+ACTOR\s+ORIGIN\s+SUMMARY/);
      expect(history.stdout).toMatch(new RegExp(`^\\d+\\s+\\d+\\s+\\S+\\s+applyBoardSet\\s+.*\\s${git(dir, 'rev-parse', 'HEAD').slice(0, 12)} Release 1\\.2\\s+items \\+2`, 'm'));
    },
    slow,
  );

  it(
    'FLEET-8: the default label is the origin remote as host/path: an SSH clone and an HTTPS checkout give the same label',
    async () => {
      const labels: string[] = [];
      for (const remote of ['git@github.com:example/dashboards.git', 'https://github.com/example/dashboards.git', 'ssh://git@GitHub.com:22/example/dashboards/']) {
        const { dir } = repository(1);
        git(dir, 'remote', 'add', 'origin', remote);
        const plan = await tessera(['plan', '-f', dir, '-o', 'json']);
        expectStatus(plan, 2);
        labels.push(JSON.parse(plan.stdout).managedBy);
      }
      expect(labels).toEqual(['github.com/example/dashboards', 'github.com/example/dashboards', 'github.com/example/dashboards']);
    },
    slow,
  );

  it(
    'FLEET-7: apply --dry-run exits as plan (2 with changes, 0 without) and writes nothing; diff and drift take no --managed-by',
    async () => {
      const label = unique('dry-');
      const { dir, names } = repository(1);
      expectStatus(await tessera(['apply', '-f', dir, '--managed-by', label, '--dry-run']), 2);
      expect(await boardByName(names[0])).toBeUndefined();
      expectStatus(await tessera(['apply', '-f', dir, '--managed-by', label, '-y']), 0);
      expectStatus(await tessera(['apply', '-f', dir, '--managed-by', label, '--dry-run']), 0);
      for (const command of ['diff', 'drift']) {
        const refused = await tessera([command, '-f', dir, '--managed-by', label]);
        expect(refused.status).not.toBe(0);
        expect(refused.stderr).toContain("unknown option '--managed-by'");
      }
    },
    slow,
  );

  it(
    'FLEET-7: errors exit 1: a file that is not a board file, a missing path, a stale board named with its file',
    async () => {
      const { dir } = repository(1);
      writeFileSync(path.join(dir, 'broken.yaml'), '- just\n- a list\n');
      const broken = await tessera(['plan', '-f', dir, '--managed-by', 'x']);
      expectStatus(broken, 1);
      expect(broken.stderr).toContain('broken.yaml: not a board file');
      expectStatus(await tessera(['plan', '-f', path.join(workDir, 'nope'), '--managed-by', 'x']), 1);

      const invalid = path.join(workDir, `${unique('inv')}.yaml`);
      const file = boardFile(unique('inv-'));
      writeFileSync(invalid, toYaml({ ...file, items: [{ ...file.items[0], layouts: [{ ...file.items[0].layouts[0], layout: 'Nope' }] }] }));
      const refused = await tessera(['plan', '-f', invalid, '--managed-by', 'x']);
      expectStatus(refused, 1);
      expect(refused.stderr).toBe(`tessera: ${invalid}: Board ${file.name}: Positions reference layouts the file does not define: Nope (BAD_REQUEST)\n`);
    },
    slow,
  );
});

/** A board file as a person writes it: one clock; `kind` on line 15, column 5; `width` on line 23, column 9. */
const handWritten = (name: string, { kind = 'clock', width = '2' } = {}) => {
  const id = unique('hw');
  return `apiVersion: tessera/v1
kind: Board
name: ${name}
layouts:
  - name: Base
    columnCount: 12
    breakpoint: 0
sections:
  - id: sec${id}
    kind: empty
    xOffset: 0
    yOffset: 0
items:
  - id: clk${id}
    kind: ${kind}
    options:
      is24HourFormat: true
    layouts:
      - layout: Base
        sectionId: sec${id}
        xOffset: 0
        yOffset: 0
        width: ${width}
        height: 1
`;
};

/** A directory of five good board files (a..e) and `f-bad.yaml` (the set's sixth board, /boards/5) with `text`. */
function directoryWithBadFile(text: string) {
  const dir = path.join(workDir, unique('bad'));
  mkdirSync(dir);
  for (const letter of 'abcde') writeFileSync(path.join(dir, `${letter}.yaml`), handWritten(unique(`${letter}-`)));
  const bad = path.join(dir, 'f-bad.yaml');
  writeFileSync(bad, text);
  return { dir, bad };
}

describe('file errors in the files\' terms (CLI-9, ERR-6)', () => {
  it(
    'CLI-9, ERR-6: one wrong field is one line naming the file, line and column, the path in the file and the rule; two are two lines',
    async () => {
      const one = directoryWithBadFile(handWritten(unique('bad-'), { kind: 'clok' }));
      const refused = await tessera(['plan', '-f', one.dir, '--managed-by', unique('hw-')]);
      expectStatus(refused, 1);
      expect(refused.stderr).toBe(
        'tessera: Input validation failed (BAD_REQUEST)\n' +
          `${one.bad}:15:5: items[0].kind: must be one of "clock", "weather", "app", "iframe", "video", "notebook", "anchorNote", "dnsHoleSummary", … (${widgetKinds.length} values) (got "clok")\n`,
      );

      const two = directoryWithBadFile(handWritten(unique('bad-'), { kind: 'clok', width: 'wide' }));
      const both = await tessera(['apply', '-f', two.dir, '--managed-by', unique('hw-'), '-y']);
      expectStatus(both, 1);
      const lines = both.stderr.trimEnd().split('\n');
      expect(lines).toEqual([
        'tessera: Input validation failed (BAD_REQUEST)',
        expect.stringMatching(new RegExp(`^${two.bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:15:5: items\\[0\\]\\.kind: must be one of `)),
        `${two.bad}:23:9: items[0].layouts[0].width: must be integer`,
      ]);
    },
    slow,
  );

  it(
    'CLI-9: boards plan and boards apply of one hand-written file: one line per problem, in the file\'s terms',
    async () => {
      const file = path.join(workDir, `${unique('single')}.yaml`);
      writeFileSync(file, handWritten(unique('single-'), { width: 'wide' }));
      for (const command of [['boards', 'plan', file], ['boards', 'apply', file, '-y']]) {
        const refused = await tessera(command);
        expectStatus(refused, 1);
        expect(refused.stderr).toBe(`tessera: Input validation failed (BAD_REQUEST)\n${file}:23:9: items[0].layouts[0].width: must be integer\n`);
      }
    },
    slow,
  );

  it(
    'ERR-6: a oneOf failure is the problem of the branch the value was meant for, once; an unknown property is named in the path',
    async () => {
      const name = unique('bad-');
      const text = handWritten(name).replace('    options:\n', '    colour: red\n    integrations:\n      - name: Living room\n    options:\n');
      const { dir, bad } = directoryWithBadFile(text);
      const refused = await tessera(['plan', '-f', dir, '--managed-by', unique('hw-')]);
      expectStatus(refused, 1);
      expect(refused.stderr.trimEnd().split('\n')).toEqual([
        'tessera: Input validation failed (BAD_REQUEST)',
        `${bad}:16:5: items[0].colour: is not a property this object takes`,
        `${bad}:18:9: items[0].integrations[0]: must have required property 'kind'`,
      ]);
      // The API's body keeps Ajv's issues as they are, beside the problems.
      const answer = await server.call('POST', '/api/boards/apply?dryRun=true', { body: { managedBy: unique('hw-'), boards: [parseYaml(text)] } });
      expect(answer.status).toBe(400);
      expect(answer.body.message).toBe('Input validation failed');
      expect(answer.body.data.issues.length).toBeGreaterThan(2);
      expect(answer.body.data.problems).toEqual([
        { instancePath: '/requestBody/boards/0/items/0/colour', keyword: 'additionalProperties', message: 'is not a property this object takes' },
        { instancePath: '/requestBody/boards/0/items/0/integrations/0', keyword: 'required', message: "must have required property 'kind'" },
      ]);
    },
    slow,
  );

  it(
    'CLI-9: a YAML or JSON syntax error names the file, line and column; names repeated in a set name every file that has them',
    async () => {
      const yaml = directoryWithBadFile(handWritten(unique('bad-')).replace('    options:\n', '    options: {is24HourFormat: true\n'));
      const broken = await tessera(['plan', '-f', yaml.dir, '--managed-by', unique('hw-')]);
      expectStatus(broken, 1);
      expect(broken.stderr).toMatch(new RegExp(`^tessera: ${yaml.bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: \\S`));
      expect(broken.stderr).not.toMatch(/at line \d+, column \d+/);

      const json = path.join(workDir, `${unique('broken')}.json`);
      writeFileSync(json, '{\n  "apiVersion": "tessera/v1",\n  kind: "Board"\n}\n');
      const brokenJson = await tessera(['plan', '-f', json, '--managed-by', unique('hw-')]);
      expectStatus(brokenJson, 1);
      expect(brokenJson.stderr).toMatch(new RegExp(`^tessera: ${json.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:3: `));

      const name = unique('twice-');
      const twice = directoryWithBadFile(handWritten(name.toUpperCase()));
      writeFileSync(path.join(twice.dir, 'c.yaml'), handWritten(name));
      const repeated = await tessera(['plan', '-f', twice.dir, '--managed-by', unique('hw-')]);
      expectStatus(repeated, 1);
      expect(repeated.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(/^tessera: Board names must be unique in a set: .* \(BAD_REQUEST\)$/),
        `${name.toUpperCase()}: ${path.join(twice.dir, 'c.yaml')}:3:1, ${twice.bad}:3:1`,
      ]);
    },
    slow,
  );
});

describe('stable plans (FLEET-7, FILE-7)', () => {
  it(
    'FILE-7: plan twice against the same server prints the same text and the same JSON, byte for byte; new layouts by name',
    async () => {
      const dir = path.join(workDir, unique('stable'));
      mkdirSync(dir);
      const first = { ...boardFile(unique('stable-a-')), layouts: [{ name: 'Base', columnCount: 12, breakpoint: 0 }, { name: 'Phone', columnCount: 4, breakpoint: 600 }] };
      // A second new board with the first's ids: the set gives them other ids (FILE-4).
      const second = { ...first, name: unique('stable-b-') };
      writeFileSync(path.join(dir, 'a.yaml'), toYaml(first));
      writeFileSync(path.join(dir, 'b.yaml'), toYaml(second));
      const label = unique('stable-');
      const runs = [];
      for (let i = 0; i < 2; i++) {
        const text = await tessera(['plan', '-f', dir, '--managed-by', label]);
        const json = await tessera(['plan', '-f', dir, '--managed-by', label, '-o', 'json']);
        expectStatus(text, 2);
        expectStatus(json, 2);
        runs.push({ text: text.stdout, json: json.stdout });
      }
      expect(runs[1].text).toBe(runs[0].text);
      expect(runs[1].json).toBe(runs[0].json);
      expect(runs[0].text).toContain('+ layout Phone');
      for (const item of first.items) expect(runs[0].text).toContain(`+ item ${item.id} (clock)`);
      expect(JSON.parse(runs[0].json).boards[1].changes.layouts.added).toEqual(['Base', 'Phone']);
    },
    slow,
  );
});

describe('tessera pull then plan, every widget kind (FLEET-7)', () => {
  it(
    'FLEET-7: boards pull then boards plan, and after the set took the board, pull then plan -f and diff -f: exit 0, no changes, for every widget kind',
    async () => {
      const { name } = await everyKindBoard(server);
      const dir = path.join(workDir, unique('kinds'));
      mkdirSync(dir);
      const file = path.join(dir, `${name}.yaml`);
      expectStatus(await tessera(['boards', 'pull', name, '-o', file]), 0);
      expect(parseYaml(readFileSync(file, 'utf8')).items.map((i: any) => i.kind).sort()).toEqual([...widgetKinds].sort());
      expectStatus(await tessera(['boards', 'plan', file]), 0);

      const label = unique('kinds-');
      expectStatus(await tessera(['apply', '-f', dir, '--managed-by', label, '-y']), 0);
      expectStatus(await tessera(['boards', 'pull', name, '-o', file]), 0);
      const plan = await tessera(['plan', '-f', dir, '--managed-by', label]);
      expectStatus(plan, 0);
      expect(plan.stdout).toContain(`No changes: 1 board of ${label} already match the files.`);
      expectStatus(await tessera(['diff', '-f', dir]), 0);
    },
    slow,
  );
});

describe('a repository started with boards export --all (FLEET-9)', () => {
  it(
    'FLEET-9, FLEET-16: export --all, edit, apply, edit, apply, plan: no 409 from the files\' source blocks; an API edit in between is planned as a conflict (exit 2)',
    async () => {
      const name = unique('exported-');
      expectOk(await server.call('POST', '/api/boards/import', { body: boardFile(name, 4) }), 201);
      const dir = path.join(workDir, unique('export'));
      expectStatus(await tessera(['boards', 'export', '--all', '-o', dir]), 0);
      for (const other of readdirSync(dir)) if (other !== `${name}.yaml`) unlinkSync(path.join(dir, other));
      const file = path.join(dir, `${name}.yaml`);
      expect(parseYaml(readFileSync(file, 'utf8')).source).toMatchObject({ version: expect.any(Number) });
      const dropItem = () => {
        const content = parseYaml(readFileSync(file, 'utf8'));
        writeFileSync(file, toYaml({ ...content, items: content.items.slice(1) }));
      };
      const label = unique('exported-');
      dropItem();
      expectStatus(await tessera(['apply', '-f', dir, '--managed-by', label, '-y']), 0);
      dropItem();
      expectStatus(await tessera(['plan', '-f', dir, '--managed-by', label]), 2);
      expectStatus(await tessera(['apply', '-f', dir, '--managed-by', label, '-y']), 0);
      expectStatus(await tessera(['plan', '-f', dir, '--managed-by', label]), 0);
      expect(expectOk(await server.call('GET', `/api/boards/${(await boardByName(name)).id}`)).items).toHaveLength(2);

      const { id } = await boardByName(name);
      const [first] = parseYaml(readFileSync(file, 'utf8')).items;
      expectOk(await server.call('PATCH', `/api/boards/${id}/items/${first.id}`, { body: { options: { is24HourFormat: false } } }));
      // FLEET-16: the API edit in between is a conflict: planned (exit 2), refused by apply, overwritten with --force.
      const stale = await tessera(['plan', '-f', dir, '--managed-by', label]);
      expectStatus(stale, 2);
      expect(stale.stdout).toContain(`Board ${name} (${id}, version`);
      expect(stale.stdout).toContain('is in conflict: it changed on the server since its file\'s base');
    },
    slow,
  );

  it(
    'FLEET-16: a hand edit of one board: plan shows the conflict with who changed what and the remedy (exit 2) and plans the other boards; apply refuses (exit 1, nothing written); apply --force writes',
    async () => {
      const { dir, names } = repository(2);
      const label = unique('conflict-');
      expectStatus(await tessera(['apply', '-f', dir, '--managed-by', label, '-y']), 0);
      // The repository is taken again with export (files with a source block), then both files are edited.
      for (const name of names) expectStatus(await tessera(['boards', 'pull', name, '-o', path.join(dir, `${name}.yaml`)]), 0);
      const read = (name: string) => parseYaml(readFileSync(path.join(dir, `${name}.yaml`), 'utf8'));
      const [edited, other] = names;
      const [kept, dropped] = read(edited).items;
      for (const name of names) writeFileSync(path.join(dir, `${name}.yaml`), toYaml({ ...read(name), items: read(name).items.slice(0, 1) }));
      // Someone changes the first board through the API meanwhile.
      const editor = await createActor(server, { permissions: ['board-modify-all'] });
      const { id } = await boardByName(edited);
      expectOk(await server.call('PATCH', `/api/boards/${id}/items/${kept.id}`, { body: { options: { is24HourFormat: false } }, key: editor.key }));
      const before = await Promise.all(names.map(boardByName));

      const plan = await tessera(['plan', '-f', dir, '--managed-by', label]);
      expectStatus(plan, 2);
      expect(plan.stdout).toContain(`Board ${edited} (${id}, version ${before[0].version}) is in conflict: it changed on the server since its file's base`);
      expect(plan.stdout).toMatch(new RegExp(`Changed there by:\\n  ${editor.username} \\(updateBoardItem, revision \\d+, `));
      expect(plan.stdout).toContain(`~ item ${kept.id} (clock)`);
      expect(plan.stdout).toContain(`Applying the file with --force would make it:\n  - item ${dropped.id} (clock)`);
      expect(plan.stdout).toContain(`Pull the board again (tessera boards pull ${edited} -o ${path.join(dir, `${edited}.yaml`)}) and redo your edit, or apply with --force to overwrite the changes made there.`);
      expect(plan.stdout).toContain(`Board ${other} (`);
      expect(plan.stdout).toContain(`Plan for ${label}: 0 to create, 1 to update, 0 to delete, 0 unchanged; 1 in conflict (changed on the server since its file's base).`);
      const json = JSON.parse((await tessera(['plan', '-f', dir, '--managed-by', label, '-o', 'json'])).stdout);
      expect(json.boards.map((b: any) => [b.name, b.action])).toEqual([[edited, 'conflict'], [other, 'update']].sort((a, b) => names.indexOf(a[0]) - names.indexOf(b[0])));

      const refused = await tessera(['apply', '-f', dir, '--managed-by', label, '-y']);
      expectStatus(refused, 1);
      expect(refused.stderr).toContain(`Refusing to apply: 1 board changed on the server since its file's base: ${edited}. Pull it again and redo your edit, or apply with --force to overwrite the changes made there.`);
      expect(await Promise.all(names.map(boardByName))).toEqual(before);

      const forced = await tessera(['apply', '-f', dir, '--managed-by', label, '-y', '--force']);
      expectStatus(forced, 0);
      expect(forced.stdout).toContain(`will be updated, overwriting what changed on the server since its file's base`);
      expect(forced.stdout).toMatch(new RegExp(`Applied ${label} at [0-9a-f]{12}: 0 created, 2 updated, 0 deleted, 0 unchanged\\.`));
      const board = expectOk(await server.call('GET', `/api/boards/${id}`));
      expect(board.items.map((i: any) => [i.id, i.options.is24HourFormat])).toEqual([[kept.id, true]]);
      expectStatus(await tessera(['plan', '-f', dir, '--managed-by', label]), 0);
    },
    slow,
  );
});

describe('tessera diff, drift', () => {
  it(
    'diff shows a file edit field by field; drift shows an API edit reversed; both exit 2, then 0',
    async () => {
      const label = unique('drift-');
      const { dir, names } = repository(1);
      const filePath = path.join(dir, `${names[0]}.yaml`);
      expectStatus(await tessera(['apply', '-f', dir, '--managed-by', label, '-y']), 0);
      expectStatus(await tessera(['diff', '-f', dir]), 0);
      expectStatus(await tessera(['drift', '-f', dir]), 0);

      const content = parseYaml(readFileSync(filePath, 'utf8'));
      const [first, second] = content.items;
      content.items[0] = { ...first, options: { is24HourFormat: false } };
      content.items[1] = { ...second, layouts: [{ ...second.layouts[0], xOffset: 6 }] };
      writeFileSync(filePath, toYaml(content));
      const diff = await tessera(['diff', '-f', dir]);
      expectStatus(diff, 2);
      expect(diff.stdout).toContain(`~ item ${first.id} (clock) options.is24HourFormat: true -> false`);
      expect(diff.stdout).toContain(`~ item ${second.id} (clock) @Base.xOffset: 2 -> 6`);
      expectStatus(await tessera(['apply', '-f', dir, '--managed-by', label, '-y']), 0);
      expectStatus(await tessera(['diff', '-f', dir]), 0);

      // Someone edits the board through the API: drift shows it as the live board's change.
      const board = await boardByName(names[0]);
      expectOk(await server.call('PATCH', `/api/boards/${board.id}/items/${first.id}`, { body: { options: { is24HourFormat: true } } }));
      const drift = await tessera(['drift', '-f', dir, '-o', 'text']);
      expectStatus(drift, 2);
      expect(drift.stdout).toContain(`Board ${names[0]} (${filePath}) changed on the server:`);
      expect(drift.stdout).toContain(`~ item ${first.id} (clock) options.is24HourFormat: false -> true`);
    },
    slow,
  );
});

describe('tessera login, context (CTX-1..4)', () => {
  it(
    'CTX-1, CTX-2: login checks the key from stdin and stores the context with mode 0600; the boards commands then need no flags',
    async () => {
      const config = path.join(workDir, unique('cfg'), 'config.yaml');
      const env = { TESSERA_CONFIG: config };
      const bad = await tessera(['login', '--server', server.directUrl], { env, connect: false, input: 'nope.nope\n' });
      expectStatus(bad, 1);
      expect(() => statSync(config)).toThrow();

      const ok = await tessera(['login', '--server', server.directUrl, '--context', 'local'], { env, connect: false, input: `${server.adminKey}\n` });
      expectStatus(ok, 0);
      expect(ok.stdout).toContain(`Logged in to ${server.directUrl} as `);
      expect(statSync(config).mode & 0o777).toBe(0o600);
      expect(parseYaml(readFileSync(config, 'utf8'))).toEqual({ 'current-context': 'local', contexts: { local: { url: server.directUrl, apiKey: server.adminKey } } });
      expectStatus(await tessera(['boards', 'list', '--json'], { env, connect: false }), 0);
    },
    slow,
  );

  it(
    'CTX-1, CTX-3, CTX-4: the key from $TESSERA_API_KEY; several contexts listed without keys; use switches, an unknown name is refused',
    async () => {
      const config = path.join(workDir, unique('cfg'), 'config.yaml');
      const env = { TESSERA_CONFIG: config, TESSERA_API_KEY: server.adminKey };
      expectStatus(await tessera(['login', '--server', server.directUrl, '--context', 'one'], { env, connect: false }), 0);
      expectStatus(await tessera(['login', '--server', `${server.directUrl}/`, '--context', 'two'], { env, connect: false }), 0);
      const listed = await tessera(['context', 'list', '-o', 'json'], { env: { TESSERA_CONFIG: config }, connect: false });
      expectStatus(listed, 0);
      expect(JSON.parse(listed.stdout)).toEqual([
        { name: 'one', url: server.directUrl, current: false, hasApiKey: true },
        { name: 'two', url: server.directUrl, current: true, hasApiKey: true },
      ]);
      expect(listed.stdout).not.toContain(server.adminKey);
      expectStatus(await tessera(['context', 'use', 'one'], { env: { TESSERA_CONFIG: config }, connect: false }), 0);
      expect(parseYaml(readFileSync(config, 'utf8'))['current-context']).toBe('one');
      const unknown = await tessera(['context', 'use', 'three'], { env: { TESSERA_CONFIG: config }, connect: false });
      expectStatus(unknown, 2);
      expect(unknown.stderr).toBe(`tessera: No context named "three" in ${config}\n`);
      expect(statSync(config).mode & 0o777).toBe(0o600);
    },
    slow,
  );
});
