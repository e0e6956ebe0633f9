/**
 * DISC-14..21, pure: what a Kubernetes API server lists (the recorded answers of test/discover/kubernetes-records/,
 * Kubernetes 1.31 networking.k8s.io/v1, Traefik traefik.io and traefik.containo.us v1alpha1, Gateway API v1.2
 * gateway.networking.k8s.io/v1, parsed as the reader parses them) in, board files and the report out.
 */
import { stringify as toYaml } from 'yaml';
import { discoverDocker } from '../../src/discover/docker';
import { discoverKubernetes, type DiscoverResult, type KubernetesAnswer } from '../../src/discover/kubernetes';
import { parseKubernetesList, traefikRoute, type KubernetesRouted } from '../../src/discover/kubernetesReader';
import { loadRecords, type Records } from '../support/kubeApi';

const secret = 'e1b5c0ffee-k8s-never-written-9931';

function answerOf(records: Records): KubernetesAnswer {
  const list = (key: string, kind: KubernetesRouted['kind']) => (records[key] ? parseKubernetesList(records[key], kind, 'recorded') : null);
  const routes = [list('ingressroutes.traefik.io', 'IngressRoute'), list('ingressroutes.traefik.containo.us', 'IngressRoute')];
  return {
    ingresses: list('ingresses.networking.k8s.io', 'Ingress'),
    ingressRoutes: routes.every((r) => r === null) ? null : routes.flatMap((r) => r ?? []),
    httpRoutes: list('httproutes.gateway.networking.k8s.io', 'HTTPRoute'),
  };
}

type Item = DiscoverResult['boards'][number]['items'][number];
const board = (result: DiscoverResult, name: string) => result.boards.find((b) => b.name === name)!;
const appsOf = (result: DiscoverResult, name: string) => board(result, name).items.map((item: Item) => item.app!);
const entriesOf = (result: DiscoverResult, object: string) => result.report.entries.filter((entry) => entry.object === object);
const filesOf = (result: DiscoverResult) => result.boards.map((b) => toYaml(b, { lineWidth: 0 })).join('---\n') + JSON.stringify(result.report);

describe('DISC-14..18: annotations of Ingresses, IngressRoutes and HTTPRoutes', () => {
  const result = discoverKubernetes(answerOf(loadRecords()));

  it('DISC-16, DISC-18: one app per enabled object of each kind, a section per group, items by weight then name', () => {
    expect(result.boards.map((b) => b.name)).toEqual(['kubernetes', 'REPLACED-OPS-BOARD']);
    const main = board(result, 'kubernetes');
    expect(main.sections.filter((s) => s.kind === 'dynamic').map((s) => s.options?.title)).toEqual(['Home', 'Media', 'Tools']);
    const media = main.sections.find((s) => s.options?.title === 'Media')!;
    const desktop = (item: Item) => item.layouts.find((l) => l.layout === 'Desktop')!;
    const inMedia = main.items.filter((item) => item.layouts[0].sectionId === media.id).sort((a, b) => desktop(a).yOffset - desktop(b).yOffset || desktop(a).xOffset - desktop(b).xOffset);
    // weights: sonarr 1, jellyfin 5, emby 10
    expect(inMedia.map((item) => item.app!.name)).toEqual(['sonarr', 'Jellyfin', 'Emby']);
    expect(appsOf(result, 'kubernetes').find((app) => app.name === 'Emby')).toEqual({
      name: 'Emby',
      iconUrl: 'https://cdn.jsdelivr.net/gh/homarr-labs/dashboard-icons/png/emby.png',
      description: 'Media server',
      href: 'https://emby.example.com',
    });
    expect(result.report.found).toEqual({ ingresses: 8, ingressRoutes: 2, httpRoutes: 1 });
    expect(result.report.boards).toEqual([
      { name: 'kubernetes', file: 'kubernetes.yaml', apps: 6 },
      { name: 'REPLACED-OPS-BOARD', file: 'REPLACED-OPS-BOARD.yaml', apps: 1 },
    ]);
  });

  it('DISC-15: href from the route: https for a TLS host, http without, the path when not /; an IngressRoute\'s Host(); an HTTPRoute\'s hostname', () => {
    const hrefs = Object.fromEntries(appsOf(result, 'kubernetes').map((app) => [app.name, app.href ?? null]));
    expect(hrefs).toEqual({
      Emby: 'https://emby.example.com',
      sonarr: 'http://sonarr.example.com/sonarr',
      Jellyfin: 'https://jellyfin.example.com',
      'Legacy app': 'http://legacy.example.com/app',
      'Home Assistant': 'https://ha.example.com',
      'Bad link': null,
    });
    expect(entriesOf(result, 'ingress media/sonarr')).toContainEqual({
      object: 'ingress media/sonarr',
      label: '',
      status: 'mapped',
      detail: 'no gethomepage.dev/href: http://sonarr.example.com/sonarr from the first rule of the Ingress (no TLS for its host)',
    });
    expect(entriesOf(result, 'httproute home/home-assistant')).toContainEqual(expect.objectContaining({ detail: expect.stringContaining('an HTTPRoute does not say: https assumed') }));
    expect(traefikRoute('Host(`a.example.com`, `b.example.com`) && PathPrefix(`/x`)', false)).toEqual({ host: 'a.example.com', path: '/x', tls: false });
  });

  it('DISC-15: a route without a single host gives no link; a path that is a pattern is left out', () => {
    const object = (route: KubernetesRouted['route']): KubernetesRouted => ({ kind: 'Ingress', apiVersion: 'networking.k8s.io/v1', namespace: 'n', name: 'x', annotations: { 'gethomepage.dev/enabled': 'true' }, route });
    const wildcard = discoverKubernetes({ ingresses: [object({ host: '*.example.com', path: '/', tls: true })], ingressRoutes: null, httpRoutes: null });
    expect(appsOf(wildcard, 'kubernetes')[0].href).toBeUndefined();
    expect(entriesOf(wildcard, 'ingress n/x')).toContainEqual({ object: 'ingress n/x', label: '', status: 'unmapped', detail: 'no link: the first rule of the Ingress names no single host (*.example.com); set gethomepage.dev/href' });
    const pattern = discoverKubernetes({ ingresses: [object({ host: 'a.example.com', path: '/app(/|$)(.*)', tls: false })], ingressRoutes: null, httpRoutes: null });
    expect(appsOf(pattern, 'kubernetes')[0].href).toBe('http://a.example.com');
    expect(result.report.found.ingressRoutes).toBe(2);
    expect(wildcard.report.found).toEqual({ ingresses: 1, ingressRoutes: null, httpRoutes: null });
  });

  it('DISC-16: gethomepage.dev/enabled "false" or absent skips the object (unless tessera.dev annotations opt it in)', () => {
    expect(entriesOf(result, 'ingress media/old-player')).toEqual([
      { object: 'ingress media/old-player', label: 'gethomepage.dev/enabled', status: 'skipped', detail: 'not enabled (gethomepage.dev/enabled: "false"): not discovered' },
    ]);
    expect(entriesOf(result, 'ingress kube-system/dashboard')).toEqual([
      { object: 'ingress kube-system/dashboard', label: '', status: 'skipped', detail: 'no gethomepage.dev/enabled: "true" and no tessera.dev/* annotations: not discovered' },
    ]);
    expect(appsOf(result, 'REPLACED-OPS-BOARD')).toEqual([expect.objectContaining({ name: 'prometheus', href: 'http://prometheus.example.com' })]);
  });

  it('DISC-9, DISC-16: widget annotations are reported, a credential by name only; pod-selector and app are reported unmapped', () => {
    const emby = entriesOf(result, 'ingress media/emby');
    expect(emby).toContainEqual({ object: 'ingress media/emby', label: 'gethomepage.dev/widget.key', status: 'skipped', detail: 'a credential: not read, not written anywhere (secrets do not come from annotations; set it on the integration)' });
    expect(emby).toContainEqual(expect.objectContaining({ label: 'gethomepage.dev/widget.type', status: 'unmapped' }));
    expect(emby).toContainEqual(expect.objectContaining({ label: 'gethomepage.dev/pod-selector', status: 'unmapped' }));
    expect(entriesOf(result, 'httproute home/home-assistant')).toContainEqual(expect.objectContaining({ label: 'gethomepage.dev/app', status: 'unmapped' }));
    expect(filesOf(result)).not.toContain(secret);
    expect(filesOf(result)).not.toContain('emby.media.svc.cluster.local');
    // Annotations of other vocabularies are never kept.
    expect(filesOf(result)).not.toContain('nginx.ingress.kubernetes.io');
  });

  it('DISC-17: gethomepage.dev/instance and instance.<name> limit an object to those homepage instances', () => {
    expect(entriesOf(result, 'ingress tools/wiki')).toEqual([
      { object: 'ingress tools/wiki', label: 'gethomepage.dev/instance', status: 'skipped', detail: 'for homepage instance internal: name it with --instance internal to read it: not discovered' },
    ]);
    const internal = discoverKubernetes(answerOf(loadRecords()), { instance: 'internal' });
    expect(appsOf(internal, 'kubernetes').map((app) => app.name)).toContain('Wiki');
    expect(appsOf(internal, 'REPLACED-OPS-BOARD').map((app) => app.name).sort()).toEqual(['Grafana', 'prometheus']);
    const publicOnly = discoverKubernetes(answerOf(loadRecords()), { instance: 'public' });
    expect(appsOf(publicOnly, 'kubernetes').map((app) => app.name)).not.toContain('Wiki');
    expect(entriesOf(publicOnly, 'ingress tools/wiki')).toEqual([
      { object: 'ingress tools/wiki', label: 'gethomepage.dev/instance', status: 'skipped', detail: 'for homepage instance internal, not public: not discovered' },
    ]);
    expect(appsOf(publicOnly, 'REPLACED-OPS-BOARD').map((app) => app.name)).toContain('Grafana');
  });

  it('DISC-18: tessera.dev/board, section, width, height and ping', () => {
    const internal = discoverKubernetes(answerOf(loadRecords()), { instance: 'internal', board: 'home-lab' });
    expect(internal.boards.map((b) => b.name)).toEqual(['home-lab', 'REPLACED-OPS-BOARD']);
    const ops = board(internal, 'REPLACED-OPS-BOARD');
    // One group alone is a category section across the board (CONV-19).
    expect(ops.sections.find((s) => s.kind === 'category')!.name).toBe('Monitoring');
    const grafana = ops.items.find((item) => item.app?.name === 'Grafana')!;
    expect(grafana.app).toEqual({ name: 'Grafana', iconUrl: 'https://grafana.example.com/favicon.ico', href: 'https://grafana.example.com', pingUrl: 'https://grafana.example.com' });
    expect(grafana.layouts.find((l) => l.layout === 'Desktop')).toMatchObject({ width: 6, height: 2 });
  });

  it('DISC-19: an IngressRoute under both Traefik groups is read once, from traefik.io', () => {
    const records = loadRecords();
    const old = records['ingressroutes.traefik.containo.us'];
    old.items.push({ ...structuredClone(records['ingressroutes.traefik.io'].items[0]), apiVersion: 'traefik.containo.us/v1alpha1' });
    const both = discoverKubernetes(answerOf(records));
    expect(appsOf(both, 'kubernetes').filter((app) => app.name === 'Jellyfin')).toHaveLength(1);
    expect(both.report.entries).toContainEqual({ object: 'ingressroute media/jellyfin', label: '', status: 'skipped', detail: 'traefik.containo.us/v1alpha1: the IngressRoute of the same name under traefik.io is read instead' });
  });
});

describe('DISC-22: one mapping for both sources', () => {
  it('DISC-22: a container\'s labels and an Ingress\'s annotations saying the same give the same app item, section and layout', () => {
    const fields = { name: 'Emby', group: 'Media', icon: 'emby.png', description: 'Media server', href: 'https://emby.example.com', weight: '3' };
    const docker = discoverDocker({ containers: [{ id: 'c1', name: 'emby', labels: Object.fromEntries(Object.entries(fields).map(([k, v]) => [`homepage.${k}`, v])) }], services: null }, { board: 'lab' });
    const annotations = { 'gethomepage.dev/enabled': 'true', ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [`gethomepage.dev/${k}`, v])) };
    const kube = discoverKubernetes({ ingresses: [{ kind: 'Ingress', apiVersion: 'networking.k8s.io/v1', namespace: 'media', name: 'emby', annotations, route: { host: null, path: null, tls: null } }], ingressRoutes: null, httpRoutes: null }, { board: 'lab' });
    const strip = (result: DiscoverResult) => ({ ...result.boards[0], items: result.boards[0].items.map(({ id: _id, layouts, ...item }) => ({ ...item, layouts: layouts.map(({ sectionId: _s, ...l }) => l) })), sections: result.boards[0].sections.map(({ id: _id, ...section }) => section) });
    expect(strip(kube)).toEqual(strip(docker));
    expect(kube.boards[0].items[0].app).toEqual({ name: 'Emby', iconUrl: 'https://cdn.jsdelivr.net/gh/homarr-labs/dashboard-icons/png/emby.png', description: 'Media server', href: 'https://emby.example.com' });
  });
});

describe('DISC-21: deterministic', () => {
  it('DISC-21: the same objects in any order (lists shuffled, annotations reordered) give byte-identical files and report', () => {
    const first = filesOf(discoverKubernetes(answerOf(loadRecords()), { managedBy: 'discovery:k8s' }));
    for (const seed of [1, 2, 3]) {
      const records = loadRecords();
      for (const list of Object.values(records)) {
        list.items = list.items.map((item, i) => [((i + 1) * 7919 * seed) % 104729, item] as const).sort((a, b) => a[0] - b[0]).map(([, item]) => item);
        for (const item of list.items) if (item.metadata.annotations) item.metadata.annotations = Object.fromEntries(Object.entries(item.metadata.annotations).reverse());
      }
      expect(filesOf(discoverKubernetes(answerOf(records), { managedBy: 'discovery:k8s' }))).toBe(first);
    }
    expect(first).toContain('managedBy: discovery:k8s');
  });
});
