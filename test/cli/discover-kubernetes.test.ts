/**
 * `tessera discover kubernetes` (DISC-13, DISC-23, DISC-24) through @kubernetes/client-node against a stand-in API
 * server serving RECORDED answers of the real Kubernetes API (no API server can run on these machines; see
 * test/support/kubeApi.ts: Kubernetes 1.31 networking.k8s.io/v1 IngressList, Traefik traefik.io/v1alpha1 and
 * traefik.containo.us/v1alpha1 IngressRouteList, Gateway API v1.2 gateway.networking.k8s.io/v1 HTTPRouteList), and
 * `--plan` against a real running Tessera (a test server).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { expectStatus, runTessera, type CliResult } from '../support/cli';
import { loadRecords, replaceAnnotation, startKubeApi, type KubeApi, type Records } from '../support/kubeApi';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';

const server = useTestServer();
const slow = 180_000;
const secret = 'e1b5c0ffee-k8s-never-written-9931';
const opsBoard = unique('k8s-ops-');

let kube: KubeApi;
let workDir: string;
let kubeconfig: string;

function records(): Records {
  const loaded = loadRecords();
  replaceAnnotation(loaded, 'REPLACED-OPS-BOARD', opsBoard);
  return loaded;
}

beforeAll(async () => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-discover-k8s-'));
  kube = await startKubeApi(records());
  kubeconfig = kube.kubeconfig(path.join(workDir, 'kubeconfig.yaml'));
});
afterAll(async () => {
  await kube?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: path.join(workDir, 'data'), TESSERA_CONFIG: path.join(workDir, 'no-config.yaml'), HOME: workDir };
  for (const name of ['DATABASE_URL', 'XDG_CONFIG_HOME', 'KUBECONFIG', 'KUBERNETES_SERVICE_HOST']) delete env[name];
  return { ...env, TESSERA_URL: server.directUrl, TESSERA_API_KEY: server.adminKey };
}

const tessera = (args: string[]): Promise<CliResult> => runTessera(args, cliEnv());
const filesOf = (dir: string) => Object.fromEntries(readdirSync(dir).sort().map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]));

describe('tessera discover kubernetes (DISC-13, DISC-23)', () => {
  beforeEach(() => {
    kube.requests.length = 0;
    kube.records = records();
  });

  it(
    'DISC-13, DISC-23: lists the three kinds cluster-wide, read-only, and writes a board file per board and the report; the credential is named, never written',
    async () => {
      const board = unique('k8s-');
      const out = path.join(workDir, unique('out-'));
      const run = await tessera(['discover', 'kubernetes', '--kubeconfig', kubeconfig, '--board', board, '-o', out]);
      expectStatus(run, 0);
      expect(kube.requests).toEqual([
        'GET /apis/networking.k8s.io/v1/ingresses?limit=1000',
        'GET /apis/traefik.io/v1alpha1/ingressroutes?limit=1000',
        'GET /apis/traefik.containo.us/v1alpha1/ingressroutes?limit=1000',
        'GET /apis/gateway.networking.k8s.io/v1/httproutes?limit=1000',
      ]);
      expect(readdirSync(out).sort()).toEqual(['discover-report.json', `${board}.yaml`, `${opsBoard}.yaml`].sort());
      const main = parseYaml(readFileSync(path.join(out, `${board}.yaml`), 'utf8'));
      expect(main).toMatchObject({ apiVersion: 'tessera/v1', kind: 'Board', name: board });
      expect(main.items.map((item: any) => [item.app.name, item.app.href ?? null]).sort()).toEqual(
        [
          ['Bad link', null],
          ['Emby', 'https://emby.example.com'],
          ['Home Assistant', 'https://ha.example.com'],
          ['Jellyfin', 'https://jellyfin.example.com'],
          ['Legacy app', 'http://legacy.example.com/app'],
          ['sonarr', 'http://sonarr.example.com/sonarr'],
        ].sort(),
      );
      const report = JSON.parse(readFileSync(path.join(out, 'discover-report.json'), 'utf8'));
      expect(report.source).toBe('kubernetes');
      expect(report.found).toEqual({ ingresses: 8, ingressRoutes: 2, httpRoutes: 1 });
      expect(report.entries).toContainEqual({ object: 'ingress media/emby', label: 'gethomepage.dev/widget.key', status: 'skipped', detail: 'a credential: not read, not written anywhere (secrets do not come from annotations; set it on the integration)' });
      expect(report.entries).toContainEqual({ object: 'ingress media/old-player', label: 'gethomepage.dev/enabled', status: 'skipped', detail: 'not enabled (gethomepage.dev/enabled: "false"): not discovered' });
      expect(run.stdout).toMatch(/ingress media\/emby\s+gethomepage\.dev\/widget\.key\s+skipped\s+a credential/);
      expect(run.stdout).toContain(`${kube.url} (all namespaces): found 8 Ingresses, 2 IngressRoutes, 1 HTTPRoute; mapped 7 apps onto 2 boards; skipped 4`);
      for (const text of [run.stdout, run.stderr, ...Object.values(filesOf(out))]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain('emby.media.svc.cluster.local');
      }
    },
    slow,
  );

  it(
    'DISC-13: --namespace lists each namespace on its own; a kind the API does not serve (404) is "not served", not an error; --instance',
    async () => {
      delete kube.records['ingressroutes.traefik.containo.us'];
      delete kube.records['httproutes.gateway.networking.k8s.io'];
      const board = unique('k8s-ns-');
      const out = path.join(workDir, unique('ns-'));
      const run = await tessera(['discover', 'kubernetes', '--kubeconfig', kubeconfig, '--namespace', 'tools', '--namespace', 'home', '--instance', 'internal', '--board', board, '-o', out, '--json']);
      expectStatus(run, 0);
      expect(kube.requests).toEqual([
        'GET /apis/networking.k8s.io/v1/namespaces/home/ingresses?limit=1000',
        'GET /apis/networking.k8s.io/v1/namespaces/tools/ingresses?limit=1000',
        'GET /apis/traefik.io/v1alpha1/namespaces/home/ingressroutes?limit=1000',
        'GET /apis/traefik.io/v1alpha1/namespaces/tools/ingressroutes?limit=1000',
        'GET /apis/traefik.containo.us/v1alpha1/namespaces/home/ingressroutes?limit=1000',
        'GET /apis/traefik.containo.us/v1alpha1/namespaces/tools/ingressroutes?limit=1000',
        'GET /apis/gateway.networking.k8s.io/v1/namespaces/home/httproutes?limit=1000',
        'GET /apis/gateway.networking.k8s.io/v1/namespaces/tools/httproutes?limit=1000',
      ]);
      const report = JSON.parse(run.stdout);
      expect(report.found).toEqual({ ingresses: 4, ingressRoutes: 0, httpRoutes: null });
      const main = parseYaml(readFileSync(path.join(out, `${board}.yaml`), 'utf8'));
      expect(main.items.map((item: any) => item.app.name).sort()).toEqual(['Bad link', 'Wiki']);
      const ops = parseYaml(readFileSync(path.join(out, `${opsBoard}.yaml`), 'utf8'));
      expect(ops.items.map((item: any) => item.app.name).sort()).toEqual(['Grafana', 'prometheus']);
    },
    slow,
  );

  it(
    'DISC-21: the same objects listed in another order give byte-identical files',
    async () => {
      const board = unique('k8s-det-');
      const first = path.join(workDir, unique('one-'));
      const second = path.join(workDir, unique('two-'));
      expectStatus(await tessera(['discover', 'kubernetes', '--kubeconfig', kubeconfig, '--board', board, '-o', first]), 0);
      for (const list of Object.values(kube.records)) {
        list.items.reverse();
        for (const item of list.items) if (item.metadata.annotations) item.metadata.annotations = Object.fromEntries(Object.entries(item.metadata.annotations).reverse());
      }
      expectStatus(await tessera(['discover', 'kubernetes', '--kubeconfig', kubeconfig, '--board', board, '-o', second]), 0);
      expect(filesOf(second)).toEqual(filesOf(first));
    },
    slow,
  );

  it(
    'DISC-13: an API that cannot be reached or refuses is one line, exit 1, nothing written; a kubeconfig that cannot be used is a usage error (exit 2)',
    async () => {
      const out = path.join(workDir, unique('gone-'));
      kube.token = 'another-token';
      const refused = await tessera(['discover', 'kubernetes', '--kubeconfig', kubeconfig, '-o', out]);
      kube.token = 'discovery-token-0451';
      expectStatus(refused, 1);
      expect(refused.stderr).toBe(`tessera: ${kube.url}: the Kubernetes API refused the ingresses.networking.k8s.io list (HTTP 401)\n`);
      expect(existsSync(out)).toBe(false);
      kube.forbidden.add('ingressroutes.traefik.io');
      const forbidden = await tessera(['discover', 'kubernetes', '--kubeconfig', kubeconfig, '--namespace', 'media', '-o', out]);
      kube.forbidden.clear();
      expectStatus(forbidden, 1);
      expect(forbidden.stderr).toBe(
        `tessera: ${kube.url}: the Kubernetes API refused the ingressroutes.traefik.io list of namespace media (HTTP 403: ingressroutes.traefik.io is forbidden: User "system:serviceaccount:tessera:discovery" cannot list resource "ingressroutes" in API group "traefik.io" in the namespace "media")\n`,
      );
      expect(existsSync(out)).toBe(false);

      const closed = await startKubeApi(records());
      const closedConfig = closed.kubeconfig(path.join(workDir, 'closed.yaml'));
      await closed.stop();
      const gone = await tessera(['discover', 'kubernetes', '--kubeconfig', closedConfig, '-o', out]);
      expectStatus(gone, 1);
      expect(gone.stderr.trim().split('\n')).toHaveLength(1);
      expect(gone.stderr).toContain(`tessera: ${closed.url}: the Kubernetes API cannot be reached: `);
      expect(gone.stderr).toContain('ECONNREFUSED');
      expect(existsSync(out)).toBe(false);

      const missing = await tessera(['discover', 'kubernetes', '--kubeconfig', path.join(workDir, 'none.yaml'), '-o', out]);
      expectStatus(missing, 2);
      expect(missing.stderr).toBe(`tessera: kubeconfig ${path.join(workDir, 'none.yaml')}: no such file\n`);
      const none = await tessera(['discover', 'kubernetes', '-o', out]);
      expectStatus(none, 2);
      expect(none.stderr).toBe('tessera: no Kubernetes configuration: pass --kubeconfig FILE, set KUBECONFIG, or run in a pod with a service account\n');
      expect(existsSync(out)).toBe(false);
      expect(kube.requests.every((request) => request.startsWith('GET /apis/'))).toBe(true);
    },
    slow,
  );

  it(
    'DISC-24: --plan shows the plan of the discovered files against the server (exit 2: changes, 0: none), as tessera plan -f does',
    async () => {
      const board = unique('k8s-plan-');
      const label = unique('discovery-k8s-');
      const planned = await tessera(['discover', 'kubernetes', '--kubeconfig', kubeconfig, '--board', board, '--managed-by', label, '--plan']);
      expectStatus(planned, 2);
      expect(planned.stdout).toContain('found 8 Ingresses, 2 IngressRoutes, 1 HTTPRoute');
      expect(planned.stdout).toContain(`Plan for ${label}: 2 to create, 0 to update, 0 to delete, 0 unchanged.`);
      expect(planned.stdout).not.toContain('wrote ');
      expect(await server.db('boards').whereRaw('lower(name) = lower(?)', [board]).first('id')).toBeUndefined();

      const out = path.join(workDir, unique('plan-'));
      expectStatus(await tessera(['discover', 'kubernetes', '--kubeconfig', kubeconfig, '--board', board, '--managed-by', label, '-o', out]), 0);
      expectStatus(await tessera(['apply', '-f', out, '--managed-by', label, '-y']), 0);
      const again = await tessera(['discover', 'kubernetes', '--kubeconfig', kubeconfig, '--board', board, '--managed-by', label, '-o', out, '--plan', '--json']);
      expectStatus(again, 0);
      const shown = JSON.parse(again.stdout);
      expect(shown.report.source).toBe('kubernetes');
      expect(shown.plan.summary).toMatchObject({ changed: false, create: 0, unchanged: 2 });

      // An Ingress goes away: its board's plan updates; with --prune the board whose objects all went is deleted.
      kube.records['ingresses.networking.k8s.io'].items = kube.records['ingresses.networking.k8s.io'].items.filter((item) => item.metadata.name !== 'emby' && item.metadata.name !== 'prometheus' && item.metadata.name !== 'grafana');
      const pruned = await tessera(['discover', 'kubernetes', '--kubeconfig', kubeconfig, '--board', board, '--managed-by', label, '--plan', '--prune', '--json']);
      expectStatus(pruned, 2);
      const actions = Object.fromEntries(JSON.parse(pruned.stdout).plan.boards.map((entry: any) => [entry.name, entry.action]));
      expect(actions).toEqual({ [board]: 'update', [opsBoard]: 'delete' });

      const noLabel = await tessera(['discover', 'kubernetes', '--kubeconfig', kubeconfig, '--plan']);
      expectStatus(noLabel, 1);
      expect(noLabel.stderr).toContain("Name the set's label with --managed-by");
    },
    slow,
  );
});
