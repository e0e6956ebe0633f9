/**
 * `tessera discover docker` (DISC-1, DISC-12) against a real Docker-compatible API (Podman's `podman system service`,
 * containers created with labels, not started), and its directory through `tessera plan` / `apply --prune` against a
 * test server.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { expectStatus, runTessera, type CliResult } from '../support/cli';
import { startPodman, type PodmanService } from '../support/podman';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';

const server = useTestServer();
const slow = 300_000;
const secret = 'k3y-never-written-0451';

let podman: PodmanService;
let workDir: string;
const board = unique('disc-');
const opsBoard = unique('disc-ops-');

beforeAll(async () => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-discover-'));
  podman = await startPodman();
  await podman.createContainer('jellyfin', {
    'homepage.group': 'Media',
    'homepage.name': 'Jellyfin',
    'homepage.icon': 'jellyfin.png',
    'homepage.href': 'https://jellyfin.example.com',
    'homepage.description': 'Films and series',
    'homepage.weight': '2',
    'homepage.widget.type': 'jellyfin',
    'homepage.widget.url': 'http://jellyfin:8096',
    'homepage.widget.key': secret,
  });
  await podman.createContainer('sonarr', { 'homepage.group': 'Media', 'homepage.name': 'Sonarr', 'homepage.icon': 'mdi-television', 'homepage.href': 'https://sonarr.example.com', 'homepage.weight': '1' });
  await podman.createContainer('adguard', {
    'homepage.group': 'Network',
    'homepage.name': 'AdGuard',
    'homepage.instance.main.href': 'https://dns.example.com',
    'homepage.instance.alt.href': 'https://dns.alt.example.com',
  });
  await podman.createContainer('alt-only', { 'homepage.instance.alt.group': 'Network', 'homepage.instance.alt.name': 'Alt only' });
  await podman.createContainer('immich', { 'glance.name': 'Immich', 'glance.url': 'https://photos.example.com', 'glance.icon': 'si:immich', 'glance.id': 'immich' });
  await podman.createContainer('immich-db', { 'glance.parent': 'immich' });
  await podman.createContainer('grafana', {
    'homepage.name': 'Grafana',
    'homepage.href': 'https://grafana.example.com',
    'tessera.board': opsBoard,
    'tessera.section': 'Monitoring',
    'tessera.width': '6',
    'tessera.height': '2',
    'tessera.ping': 'true',
  });
  await podman.createContainer('postgres');
}, slow);
afterAll(async () => {
  await podman?.stop();
  rmSync(workDir, { recursive: true, force: true });
}, 120_000);

function cliEnv(dockerHost: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: path.join(workDir, 'data'), TESSERA_CONFIG: path.join(workDir, 'no-config.yaml'), DOCKER_HOST: dockerHost };
  for (const name of ['DATABASE_URL', 'XDG_CONFIG_HOME']) delete env[name];
  return { ...env, TESSERA_URL: server.directUrl, TESSERA_API_KEY: server.adminKey };
}

const tessera = (args: string[], dockerHost = `unix://${podman.socketPath}`): Promise<CliResult> => runTessera(args, cliEnv(dockerHost));

const filesOf = (dir: string) => Object.fromEntries(readdirSync(dir).sort().map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]));

describe('tessera discover docker (DISC-1, DISC-12)', () => {
  it(
    'DISC-12: writes a board file per board and the report from the labels of a real engine; the credential is named, never written or printed',
    async () => {
      const out = path.join(workDir, unique('out-'));
      const run = await tessera(['discover', 'docker', '--board', board, '--instance', 'main', '-o', out]);
      expectStatus(run, 0);
      expect(readdirSync(out).sort()).toEqual(['discover-report.json', `${board}.yaml`, `${opsBoard}.yaml`].sort());
      const main = parseYaml(readFileSync(path.join(out, `${board}.yaml`), 'utf8'));
      expect(main).toMatchObject({ apiVersion: 'tessera/v1', kind: 'Board', name: board, isPublic: false });
      const titles = main.sections.filter((s: any) => s.kind === 'dynamic').map((s: any) => s.options.title);
      expect(titles).toEqual(['Media', 'Network', 'Services']);
      const inSection = (title: string) => {
        const id = main.sections.find((s: any) => s.options?.title === title).id;
        return main.items.filter((item: any) => item.layouts[0].sectionId === id).map((item: any) => item.app);
      };
      expect(inSection('Media')).toEqual([
        { name: 'Sonarr', iconUrl: 'https://cdn.jsdelivr.net/npm/@mdi/svg/svg/television.svg', href: 'https://sonarr.example.com' },
        { name: 'Jellyfin', iconUrl: 'https://cdn.jsdelivr.net/gh/homarr-labs/dashboard-icons/png/jellyfin.png', description: 'Films and series', href: 'https://jellyfin.example.com' },
      ]);
      expect(inSection('Network')).toEqual([{ name: 'AdGuard', iconUrl: 'https://dns.example.com/favicon.ico', href: 'https://dns.example.com' }]);
      expect(inSection('Services')).toEqual([{ name: 'Immich', iconUrl: 'https://cdn.jsdelivr.net/npm/simple-icons/icons/immich.svg', href: 'https://photos.example.com' }]);
      const ops = parseYaml(readFileSync(path.join(out, `${opsBoard}.yaml`), 'utf8'));
      expect(ops.sections.find((s: any) => s.kind === 'category').name).toBe('Monitoring');
      expect(ops.items).toHaveLength(1);
      expect(ops.items[0].app).toEqual({ name: 'Grafana', iconUrl: 'https://grafana.example.com/favicon.ico', href: 'https://grafana.example.com', pingUrl: 'https://grafana.example.com' });
      expect(ops.items[0].layouts.find((l: any) => l.layout === 'Desktop')).toMatchObject({ width: 6, height: 2 });

      const report = JSON.parse(readFileSync(path.join(out, 'discover-report.json'), 'utf8'));
      expect(report.source).toBe('docker');
      // Podman has no Swarm: its service list answers 404, which is "no swarm", not an error (DISC-1).
      expect(report.found).toEqual({ containers: 8, services: null });
      expect(report.boards).toEqual([
        { name: board, file: `${board}.yaml`, apps: 4 },
        { name: opsBoard, file: `${opsBoard}.yaml`, apps: 1 },
      ].sort((a, b) => (a.name < b.name ? -1 : 1)));
      expect(report.entries).toContainEqual({ object: 'container jellyfin', label: 'homepage.widget.key', status: 'skipped', detail: 'a credential: not read, not written anywhere (secrets do not come from labels; set it on the integration)' });
      expect(report.entries).toContainEqual({ object: 'container postgres', label: '', status: 'skipped', detail: 'no homepage.*, glance.* or tessera.* labels (for this instance): not discovered' });
      expect(report.entries).toContainEqual({ object: 'container immich-db', label: 'glance.parent', status: 'skipped', detail: 'shown with its parent immich in Glance (glance.parent): not an app of its own' });
      expect(report.entries).toContainEqual({ object: 'container alt-only', label: 'homepage.instance.alt.name', status: 'skipped', detail: 'for homepage instance alt, not main' });

      // The credential's label is named in what is printed; its value is nowhere.
      expect(run.stdout).toMatch(/container jellyfin\s+homepage\.widget\.key\s+skipped\s+a credential/);
      expect(run.stdout).toContain(`unix://${podman.socketPath}: found 8 containers (not a Swarm manager)`);
      expect(run.stdout).toContain('mapped 5 apps onto 2 boards; skipped 3');
      for (const text of [run.stdout, run.stderr, ...Object.values(filesOf(out))]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain('http://jellyfin:8096');
      }
    },
    slow,
  );

  it(
    'DISC-11: the same containers give byte-identical files, over the socket and over tcp://, run after run',
    async () => {
      const first = path.join(workDir, unique('one-'));
      const second = path.join(workDir, unique('two-'));
      expectStatus(await tessera(['discover', 'docker', '--board', board, '--instance', 'alt', '-o', first]), 0);
      const tcp = await podman.serveTcp();
      expectStatus(await tessera(['discover', 'docker', '--board', board, '--instance', 'alt', '-o', second], tcp), 0);
      expect(filesOf(second)).toEqual(filesOf(first));
      const before = filesOf(first);
      expectStatus(await tessera(['discover', 'docker', '--board', board, '--instance', 'alt', '-o', first]), 0);
      expect(filesOf(first)).toEqual(before);
      const alt = parseYaml(before[`${board}.yaml`]);
      expect(alt.items.map((item: any) => [item.app.name, item.app.href ?? null])).toEqual(
        expect.arrayContaining([['AdGuard', 'https://dns.alt.example.com'], ['Alt only', null]]),
      );
    },
    slow,
  );

  it(
    'DISC-24: discover docker --plan shows the plan against the server through tessera plan\'s code (exit 2: changes), with or without -o; it applies nothing',
    async () => {
      const label = unique('discovery-plan-');
      const planBoard = unique('disc-plan-');
      const planned = await tessera(['discover', 'docker', '--board', planBoard, '--managed-by', label, '--plan']);
      expectStatus(planned, 2);
      expect(planned.stdout).toMatch(/container jellyfin\s+homepage\.widget\.key\s+skipped/);
      expect(planned.stdout).toContain(`Plan for ${label}: 2 to create, 0 to update, 0 to delete, 0 unchanged.`);
      expect(planned.stdout).not.toContain(secret);
      expect(await server.db('boards').whereRaw('lower(name) = lower(?)', [planBoard]).first('id')).toBeUndefined();
      // With -o the files stay, written before they are planned; nothing is applied (the next test applies).
      const out = path.join(workDir, unique('plan-'));
      const written = await tessera(['discover', 'docker', '--board', planBoard, '--managed-by', label, '-o', out, '--plan', '--json']);
      expectStatus(written, 2);
      expect(JSON.parse(written.stdout).plan.summary).toMatchObject({ changed: true, create: 2 });
      expect(readdirSync(out).sort()).toEqual(['discover-report.json', `${planBoard}.yaml`, `${opsBoard}.yaml`].sort());
      expect(await server.db('boards').whereRaw('lower(name) = lower(?)', [planBoard]).first('id')).toBeUndefined();
      const unreachable = await tessera(['discover', 'docker', '--managed-by', label, '--plan'], `unix://${path.join(workDir, 'no-such.sock')}`);
      expectStatus(unreachable, 1);
    },
    slow,
  );

  it(
    'DISC-12: discover, then tessera plan -f and apply -y take the directory; a board discovery no longer writes loses its file and apply --prune deletes it',
    async () => {
      const label = unique('discovery-');
      const out = path.join(workDir, unique('set-'));
      expectStatus(await tessera(['discover', 'docker', '--board', board, '--managed-by', label, '-o', out]), 0);
      expect(parseYaml(readFileSync(path.join(out, `${board}.yaml`), 'utf8')).managedBy).toBe(label);
      const plan = await tessera(['plan', '-f', out, '--managed-by', label]);
      expectStatus(plan, 2);
      expect(plan.stdout).toContain(`Plan for ${label}: 2 to create, 0 to update, 0 to delete, 0 unchanged.`);
      expectStatus(await tessera(['apply', '-f', out, '--managed-by', label, '-y']), 0);
      const applied = await server.db('boards').whereRaw('lower(name) = lower(?)', [board]).first('id', 'managedBy');
      expect(applied.managedBy).toBe(label);
      expect(await server.db('apps').where({ name: 'Jellyfin', href: 'https://jellyfin.example.com' }).first('id')).toBeDefined();
      expectStatus(await tessera(['plan', '-f', out, '--managed-by', label]), 0);

      // The services move to another board: the old file goes, the plan with --prune deletes the old board.
      const moved = unique('disc-moved-');
      const again = await tessera(['discover', 'docker', '--board', moved, '--managed-by', label, '-o', out]);
      expectStatus(again, 0);
      expect(readdirSync(out).sort()).toEqual(['discover-report.json', `${moved}.yaml`, `${opsBoard}.yaml`].sort());
      const prune = await tessera(['plan', '-f', out, '--managed-by', label, '--prune', '-o', 'json']);
      expectStatus(prune, 2);
      const actions = Object.fromEntries(JSON.parse(prune.stdout).boards.map((entry: any) => [entry.name, entry.action]));
      expect(actions).toEqual({ [moved]: 'create', [opsBoard]: 'unchanged', [board]: 'delete' });
      expectStatus(await tessera(['apply', '-f', out, '--managed-by', label, '--prune', '-y']), 0);
      expect(await server.db('boards').whereRaw('lower(name) = lower(?)', [board]).first('id')).toBeUndefined();
    },
    slow,
  );

  it(
    'DISC-12: a file discovery did not write is never overwritten; DISC-1: an engine that cannot be reached is one line, exit 1',
    async () => {
      const dir = path.join(workDir, unique('mine-'));
      mkdirSync(dir);
      writeFileSync(path.join(dir, `${board}.yaml`), 'hand: written\n');
      const refused = await tessera(['discover', 'docker', '--board', board, '-o', dir]);
      expectStatus(refused, 2);
      expect(refused.stderr).toContain(`${path.join(dir, `${board}.yaml`)} is not a file an earlier discovery wrote here`);
      expect(readFileSync(path.join(dir, `${board}.yaml`), 'utf8')).toBe('hand: written\n');

      const gone = await tessera(['discover', 'docker', '-o', dir], `unix://${path.join(workDir, 'no-such.sock')}`);
      expectStatus(gone, 1);
      expect(gone.stderr.trim().split('\n')).toHaveLength(1);
      expect(gone.stderr).toMatch(/^tessera: /);
    },
    slow,
  );
});
