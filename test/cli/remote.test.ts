import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { expectStatus, runTessera, type CliResult } from '../support/cli';
import { useTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

/** Two instances on separate databases: `source` for most tests, `target` to import into. */
const source = useTestServer();
const target = useTestServer();

const repoRoot = path.join(__dirname, '../..');
const conflictLine = 'tessera: This board was modified by another request. Reload the latest board and retry. (CONFLICT)\n';
const slow = 180_000;

let workDir: string;
/** DATA_DIR of every spawned CLI: must stay empty, since no remote command (nor help) may create a database. */
let dataDir: string;

beforeAll(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-cli-'));
  dataDir = path.join(workDir, 'data');
  mkdirSync(dataDir);
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** The environment of a spawned CLI: talking to `server` (when given), and nothing inherited that could interfere. */
function cliEnv(server: TestServer | null, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, TESSERA_CONFIG: path.join(workDir, 'no-config.yaml') };
  for (const name of ['DATABASE_URL', 'TESSERA_URL', 'TESSERA_API_KEY', 'XDG_CONFIG_HOME']) delete env[name];
  if (server) Object.assign(env, { TESSERA_URL: server.directUrl, TESSERA_API_KEY: server.adminKey });
  return { ...env, ...extra };
}

/** Runs `tessera <args>` as its own process (bin/tessera.js), stdin not a terminal. */
function tessera(args: string[], options: { server?: TestServer | null; env?: Record<string, string> } = {}): Promise<CliResult> {
  return runTessera(args, cliEnv(options.server === undefined ? source : options.server, options.env ?? {}));
}

/** A board with two clocks in its empty section on layout Base, created through the API. */
async function boardWithClocks(server: TestServer = source) {
  const name = unique('cli-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false } }), 201);
  const start = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const [layoutId, sectionId] = [start.layouts[0].id, start.sections[0].id];
  const clocks = [unique('clock'), unique('clock')];
  const items = clocks.map((id, i) => item(id, [position(layoutId, sectionId, i * 2, 0, 2, 1)]));
  expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections: start.sections, items } }));
  return { name, boardId, sectionId, clocks };
}

const boardDoc = async (server: TestServer, boardId: string) => expectOk(await server.call('GET', `/api/boards/${boardId}`));
const historyLength = async (boardId: string) => expectOk(await source.call('GET', `/api/boards/${boardId}/history?limit=500`)).entries.length;

function editFile(file: string, edit: (content: any) => void) {
  const content = parseYaml(readFileSync(file, 'utf8'));
  edit(content);
  writeFileSync(file, toYaml(content));
}

const newClock = (id: string, sectionId: string) => ({
  id,
  kind: 'clock',
  options: {},
  layouts: [{ layout: 'Base', sectionId, xOffset: 6, yOffset: 0, width: 2, height: 1 }],
});

describe('tessera boards pull, plan, apply', () => {
  it(
    'pull, edit the file, plan (exit 2) lists the edit, apply --yes writes it, plan again is exit 0',
    async () => {
      const board = await boardWithClocks();
      const file = path.join(workDir, `${board.name}.yaml`);
      expectStatus(await tessera(['boards', 'pull', board.name, '-o', file]), 0);
      expect(parseYaml(readFileSync(file, 'utf8'))).toMatchObject({ kind: 'Board', name: board.name, source: { boardId: board.boardId } });

      const added = unique('clock');
      editFile(file, (content) => {
        content.items.push(newClock(added, board.sectionId));
        content.settings.pageTitle = 'Edited by the CLI';
      });

      const plan = await tessera(['boards', 'plan', file]);
      expectStatus(plan, 2);
      expect(plan.stdout).toContain(`+ item ${added} (clock)`);
      expect(plan.stdout).toMatch(/~ pageTitle: null -> "Edited by the CLI"/);
      expect(plan.stdout).toContain('Plan: 1 to add, 1 to change, 0 to remove.');
      const planJson = await tessera(['boards', 'plan', file, '--json']);
      expectStatus(planJson, 2);
      expect(JSON.parse(planJson.stdout)).toMatchObject({ action: 'replace', boardId: board.boardId, changes: { items: { added: [added] } } });

      const revisions = await historyLength(board.boardId);
      const unconfirmed = await tessera(['boards', 'apply', file]);
      expectStatus(unconfirmed, 1);
      expect(unconfirmed.stderr).toBe('tessera: Refusing to apply without confirmation: stdin is not a terminal (pass --yes)\n');
      expect(await historyLength(board.boardId)).toBe(revisions);

      const apply = await tessera(['boards', 'apply', file, '--yes']);
      expectStatus(apply, 0);
      expect(apply.stdout).toContain(`+ item ${added} (clock)`);
      expect(apply.stdout).toContain(`updated ${board.name} (${board.boardId})`);
      const after = await boardDoc(source, board.boardId);
      expect(after.pageTitle).toBe('Edited by the CLI');
      expect(after.items.map((i: any) => i.id).sort()).toEqual([...board.clocks, added].sort());

      const again = await tessera(['boards', 'plan', file]);
      expectStatus(again, 0);
      expect(again.stdout).toContain('No changes');
      const reapply = await tessera(['boards', 'apply', file, '--yes']);
      expectStatus(reapply, 0);
      expect(reapply.stdout).toContain('No changes');
      expect(await historyLength(board.boardId)).toBe(revisions + 1);
    },
    slow,
  );

  it(
    'FILE-8: pull then plan of a board with a bookmarks widget and an app widget naming the same app: no change, no warning, exit 0',
    async () => {
      const board = await boardWithClocks();
      const doc = await boardDoc(source, board.boardId);
      const app = expectOk(await source.call('POST', '/api/apps', { body: { name: unique('app'), href: 'https://app.example.com', iconUrl: 'https://example.com/a.png' } }), 201);
      const layoutId = doc.layouts[0].id;
      const items = [
        ...doc.items,
        item(unique('appw'), [position(layoutId, board.sectionId, 6, 0)], { kind: 'app', options: { appId: app.appId } }),
        item(unique('bookm'), [position(layoutId, board.sectionId, 8, 0)], { kind: 'bookmarks', options: { title: 'Links', items: [app.appId] } }),
      ];
      expectOk(await source.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: doc.sections, items } }));
      const file = path.join(workDir, `${board.name}.yaml`);
      expectStatus(await tessera(['boards', 'pull', board.name, '-o', file]), 0);
      const plan = await tessera(['boards', 'plan', file]);
      expectStatus(plan, 0);
      expect(plan.stdout).toContain('No changes');
      expect(plan.stdout).not.toContain('UNKNOWN_OPTION');
    },
    slow,
  );

  it(
    'pull --format json to stdout; a new board name in the file is created by apply',
    async () => {
      const board = await boardWithClocks();
      const pulled = await tessera(['boards', 'pull', board.name, '--format', 'json']);
      expectStatus(pulled, 0);
      const content = JSON.parse(pulled.stdout);
      expect(content.items.map((i: any) => i.id).sort()).toEqual([...board.clocks].sort());

      const { source: _source, ...copy } = content;
      const copyName = unique('cli-copy-');
      const file = path.join(workDir, `${copyName}.json`);
      writeFileSync(file, JSON.stringify({ ...copy, name: copyName }));
      const apply = await tessera(['boards', 'apply', file, '--yes']);
      expectStatus(apply, 0);
      expect(apply.stdout).toContain(`Board ${copyName} will be created`);
      const created = expectOk(await source.call('GET', `/api/boards/by-name/${copyName}`));
      expect(apply.stdout).toContain(`created ${copyName} (${created.id})`);
      expect(created.items).toHaveLength(2);
    },
    slow,
  );

  it(
    'apply refuses a file whose board changed on the server since the pull, shows that change and writes nothing; --force applies it',
    async () => {
      const board = await boardWithClocks();
      const file = path.join(workDir, `${board.name}.yaml`);
      expectStatus(await tessera(['boards', 'pull', board.name, '-o', file]), 0);
      editFile(file, (content) => (content.settings.pageTitle = 'Local edit'));
      expectOk(await source.call('DELETE', `/api/boards/${board.boardId}/items/${board.clocks[0]}`));
      const before = await boardDoc(source, board.boardId);

      const refused = await tessera(['boards', 'apply', file, '--yes']);
      expectStatus(refused, 1);
      expect(refused.stderr).toBe(conflictLine);
      expect(refused.stdout).toContain(`- item ${board.clocks[0]} (clock)`);
      expect(refused.stdout).toContain('--force');
      const plan = await tessera(['boards', 'plan', file]);
      expectStatus(plan, 1);
      expect(plan.stderr).toBe(conflictLine);
      expect(await boardDoc(source, board.boardId)).toEqual(before);

      const forced = await tessera(['boards', 'apply', file, '--yes', '--force']);
      expectStatus(forced, 0);
      expect(forced.stdout).toContain(`+ item ${board.clocks[0]} (clock)`);
      const after = await boardDoc(source, board.boardId);
      expect(after.pageTitle).toBe('Local edit');
      expect(after.items.map((i: any) => i.id).sort()).toEqual([...board.clocks].sort());
    },
    slow,
  );
});

describe('tessera boards export and import', () => {
  it(
    'export --all, then import into a second instance: the boards arrive; a bad file is reported at the end and the others still import',
    async () => {
      const boards = [await boardWithClocks(), await boardWithClocks()];
      const dir = path.join(workDir, 'export');
      const exported = await tessera(['boards', 'export', '--all', '-o', dir]);
      expectStatus(exported, 0);
      const listed = expectOk(await source.call('GET', '/api/boards')).map((b: any) => `${b.name}.yaml`);
      expect(readdirSync(dir).sort()).toEqual(listed.sort());
      for (const board of boards) expect(exported.stdout).toContain(`exported ${board.name} to ${path.join(dir, `${board.name}.yaml`)}`);

      writeFileSync(path.join(dir, 'broken.yaml'), toYaml({ apiVersion: 'tessera/v1', kind: 'Board', name: 'not a board name', layouts: [], sections: [], items: [] }));
      writeFileSync(path.join(dir, 'notes.txt'), 'not a board file');
      const imported = await tessera(['boards', 'import', dir], { server: target });
      expectStatus(imported, 1);
      expect(imported.stderr).toMatch(/^tessera: broken\.yaml: .+ \(BAD_REQUEST\)$/m);
      expect(imported.stderr.trim().split('\n')).toHaveLength(1);
      expect(imported.stdout).toContain('failed broken.yaml');
      expect(imported.stdout).toContain(`Imported ${listed.length} of ${listed.length + 1} files`);
      for (const board of boards) {
        const copy = expectOk(await target.call('GET', `/api/boards/by-name/${board.name}`));
        expect(imported.stdout).toContain(`created ${board.name} (${copy.id}) from ${board.name}.yaml`);
        expect(copy.items.map((i: any) => i.id).sort()).toEqual([...board.clocks].sort());
      }

      rmSync(path.join(dir, 'broken.yaml'));
      const again = await tessera(['boards', 'import', dir, '--json'], { server: target });
      expectStatus(again, 0);
      const report = JSON.parse(again.stdout);
      expect(report.failures).toEqual([]);
      expect(report.results.map((r: any) => r.result)).toEqual(listed.map(() => 'updated'));
    },
    slow,
  );
});

describe('tessera boards history, diff, restore, list', () => {
  it(
    'list --json is the board list; history, diff --from 1 and restore <name> 1 --yes work; restore without --yes and no terminal is refused (CLI-1)',
    async () => {
      const board = await boardWithClocks();
      const list = await tessera(['boards', 'list', '--json']);
      expectStatus(list, 0);
      expect(JSON.parse(list.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ id: board.boardId, name: board.name })]));
      const table = await tessera(['boards', 'list']);
      expectStatus(table, 0);
      expect(table.stdout).toMatch(/^NAME\s+ID\s+PUBLIC\s+HOME/);
      expect(table.stdout).toMatch(new RegExp(`^${board.name}\\s+${board.boardId}\\s+no`, 'm'));

      const history = await tessera(['boards', 'history', board.name]);
      expectStatus(history, 0);
      expect(history.stdout).toMatch(/^REVISION\s+VERSION\s+AT\s+OPERATION\s+ACTOR\s+ORIGIN\s+SUMMARY/);
      expect(history.stdout).toMatch(/^2\s+\d+\s+\S+\s+saveBoard\s+.*\s-\s+items \+2/m);
      expect(JSON.parse((await tessera(['boards', 'history', board.name, '--json'])).stdout).entries).toHaveLength(2);

      const diff = await tessera(['boards', 'diff', board.name, '--from', '1']);
      expectStatus(diff, 0);
      for (const clock of board.clocks) expect(diff.stdout).toContain(`+ item ${clock} (clock)`);
      const diffJson = JSON.parse((await tessera(['boards', 'diff', board.name, '--from', '1', '--to', '2', '--json'])).stdout);
      expect(diffJson).toMatchObject({ from: 1, to: 2, changes: { items: { added: expect.arrayContaining(board.clocks) } } });

      const unconfirmed = await tessera(['boards', 'restore', board.name, '1']);
      expectStatus(unconfirmed, 1);
      expect(unconfirmed.stderr).toBe('tessera: Refusing to restore without confirmation: stdin is not a terminal (pass --yes)\n');
      expect((await boardDoc(source, board.boardId)).items).toHaveLength(2);
      expect(await historyLength(board.boardId)).toBe(2);

      const restore = await tessera(['boards', 'restore', board.name, '1', '--yes']);
      expectStatus(restore, 0);
      expect(restore.stdout).toContain(`restored ${board.name} (${board.boardId}) to revision 1`);
      expect((await boardDoc(source, board.boardId)).items).toEqual([]);
    },
    slow,
  );

  it(
    'HIST-6: restore names the deleted apps the revision\'s widgets named (a bookmarks entry), and the app widget it left out',
    async () => {
      const name = unique('cli-');
      const { boardId } = expectOk(await source.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false } }), 201);
      const start = expectOk(await source.call('GET', `/api/boards/${boardId}`));
      const [layoutId, sectionId] = [start.layouts[0].id, start.sections[0].id];
      const newApp = async () => expectOk(await source.call('POST', '/api/apps', { body: { name: unique('app'), href: `https://example.com/${unique('p')}`, iconUrl: 'https://example.com/i.png' } }), 201).appId as string;
      const [kept, gone] = [await newApp(), await newApp()];
      const [bookmarks, appWidget] = [unique('bm'), unique('appw')];
      const items = [
        item(bookmarks, [position(layoutId, sectionId, 0, 0, 2, 1)], { kind: 'bookmarks', options: { items: [kept, gone] } }),
        item(appWidget, [position(layoutId, sectionId, 2, 0)], { kind: 'app', options: { appId: gone } }),
      ];
      expectOk(await source.call('PUT', `/api/boards/${boardId}`, { body: { sections: start.sections, items } }));
      expectOk(await source.call('PUT', `/api/boards/${boardId}`, { body: { sections: start.sections, items: [] } }));
      expect((await source.call('DELETE', `/api/apps/${gone}`)).status).toBe(204);

      const restore = await tessera(['boards', 'restore', name, '2', '--yes']);
      expectStatus(restore, 0);
      expect(restore.stdout).toContain(`left out: app widgets whose app was deleted: ${appWidget}\n`);
      expect(restore.stdout).toContain(`deleted apps the revision's widgets named: ${gone}\n`);
      expect((await boardDoc(source, boardId)).items.map((i: any) => i.id)).toEqual([bookmarks]);
    },
    slow,
  );

  it(
    'CLI-2: after a restore back to the revision a file was pulled at, plan gives one verdict: the file\'s edit, not a server change',
    async () => {
      const board = await boardWithClocks();
      const file = path.join(workDir, `${board.name}.yaml`);
      expectStatus(await tessera(['boards', 'pull', board.name, '-o', file]), 0);
      const pulledAt = parseYaml(readFileSync(file, 'utf8')).source.revision;
      const added = unique('clock');
      editFile(file, (content) => content.items.push(newClock(added, board.sectionId)));
      // Someone deletes a clock on the server, then restores the revision the file was pulled at.
      expectOk(await source.call('DELETE', `/api/boards/${board.boardId}/items/${board.clocks[0]}`));
      expectStatus(await tessera(['boards', 'restore', board.name, String(pulledAt), '--yes']), 0);

      const plan = await tessera(['boards', 'plan', file]);
      expectStatus(plan, 2);
      expect(plan.stdout).not.toContain('changed on the server');
      expect(plan.stdout).not.toContain('No changes');
      expect(plan.stdout).toContain(`+ item ${added} (clock)`);
      expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to remove.');

      const apply = await tessera(['boards', 'apply', file, '--yes']);
      expectStatus(apply, 0);
      expect((await boardDoc(source, board.boardId)).items.map((i: any) => i.id).sort()).toEqual([...board.clocks, added].sort());
    },
    slow,
  );

  it(
    'a server error is one line with its code and exit 1; no URL is a usage error (exit 2)',
    async () => {
      const missing = await tessera(['boards', 'history', 'no-such-board']);
      expectStatus(missing, 1);
      expect(missing.stderr).toBe('tessera: Board not found (NOT_FOUND)\n');
      expect(missing.stdout).toBe('');

      const badKey = await tessera(['boards', 'list'], { env: { TESSERA_API_KEY: 'nobody.nothing' } });
      expectStatus(badKey, 1);
      expect(badKey.stderr.trim().split('\n')).toHaveLength(1);
      expect(badKey.stderr).toMatch(/^tessera: .+ \(UNAUTHORIZED\)\n$/);

      const noUrl = await tessera(['boards', 'list'], { server: null });
      expectStatus(noUrl, 2);
      expect(noUrl.stderr).toMatch(/^tessera: No instance URL: pass --url, set TESSERA_URL or add a context to .+\n$/);
    },
    slow,
  );

  it(
    'connects through a context of the config file; flags beat the environment',
    async () => {
      const config = path.join(workDir, 'config.yaml');
      writeFileSync(
        config,
        toYaml({
          'current-context': 'target',
          contexts: { source: { url: source.directUrl, apiKey: source.adminKey }, target: { url: target.directUrl, apiKey: target.adminKey } },
        }),
      );
      const board = await boardWithClocks(target);
      const namesIn = (result: CliResult) => JSON.parse(result.stdout).map((b: any) => b.name);
      const current = await tessera(['boards', 'list', '--json'], { server: null, env: { TESSERA_CONFIG: config } });
      expectStatus(current, 0);
      expect(namesIn(current)).toContain(board.name);
      const chosen = await tessera(['boards', 'list', '--json', '--context', 'source'], { server: null, env: { TESSERA_CONFIG: config } });
      expect(namesIn(chosen)).not.toContain(board.name);
      const flagged = await tessera(['boards', 'list', '--json', '--url', target.directUrl, '--api-key', target.adminKey], { server: source });
      expect(namesIn(flagged)).toContain(board.name);
      const unknown = await tessera(['boards', 'list', '--context', 'nowhere'], { server: null, env: { TESSERA_CONFIG: config } });
      expectStatus(unknown, 2);
      expect(unknown.stderr).toBe(`tessera: No context named "nowhere" in ${config}\n`);
    },
    slow,
  );
});

describe('tessera without a database', () => {
  it(
    '--help, --version and an unknown command or option never create a database',
    async () => {
      const help = await tessera(['boards', 'apply', '--help'], { server: null });
      expectStatus(help, 0);
      expect(help.stdout).toContain('Usage: tessera boards apply [options] <file>');
      expect(help.stdout).toContain('--force');
      const topHelp = await tessera(['--help'], { server: null });
      expectStatus(topHelp, 0);
      expect(topHelp.stdout).toContain('boards');
      expect(topHelp.stdout).toContain('users');

      const version = await tessera(['--version'], { server: null });
      expectStatus(version, 0);
      expect(version.stdout).toBe(`${JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version}\n`);

      const unknown = await tessera(['frobnicate'], { server: null });
      expectStatus(unknown, 2);
      expect(unknown.stderr).toBe("tessera: unknown command 'frobnicate'\n");
      const unknownOption = await tessera(['users', 'list', '--bogus'], { server: null });
      expectStatus(unknownOption, 2);
      expect(unknownOption.stderr).toBe("tessera: unknown option '--bogus'\n");
      const missingArgument = await tessera(['boards', 'plan'], { server: null });
      expectStatus(missingArgument, 2);
      expect(missingArgument.stderr).toBe("tessera: missing required argument 'file'\n");

      expect(readdirSync(dataDir)).toEqual([]);
    },
    slow,
  );
});
