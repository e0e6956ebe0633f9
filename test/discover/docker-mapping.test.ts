/** DISC-2..11, pure: labels in, board files and report out (no engine: recorded-shape answers). */
import { boundedLabels, parseServiceList } from '../../src/integrations/clients/docker';
import { discoverDocker, type DiscoverResult } from '../../src/discover/docker';
import type { DockerDiscoveryAnswer, DockerLabelled } from '../../src/integrations/clients/docker';

const container = (name: string, labels: Record<string, string>, id = `${name}-id`): DockerLabelled => ({ id, name, labels });
const answer = (containers: DockerLabelled[], services: DockerLabelled[] | null = null): DockerDiscoveryAnswer => ({ containers, services });

type Item = DiscoverResult['boards'][number]['items'][number];
const apps = (result: DiscoverResult, board = 0): NonNullable<Item['app']>[] => result.boards[board].items.map((item) => item.app!);
const entriesOf = (result: DiscoverResult, object: string) => result.report.entries.filter((entry) => entry.object === object);

describe('DISC-4..7: label vocabularies', () => {
  it('DISC-4: homepage labels give the app; sections per group by name, items by weight then name', () => {
    const result = discoverDocker(
      answer([
        container('jellyfin', { 'homepage.group': 'Media', 'homepage.name': 'Jellyfin', 'homepage.icon': 'jellyfin.png', 'homepage.href': 'https://jf.example.com', 'homepage.description': 'Films', 'homepage.weight': '2' }),
        container('sonarr', { 'homepage.group': 'Media', 'homepage.name': 'Sonarr', 'homepage.icon': 'mdi-television', 'homepage.href': 'https://sonarr.example.com', 'homepage.weight': '1' }),
        container('adguard', { 'homepage.group': 'Network', 'homepage.name': 'AdGuard', 'homepage.href': 'https://dns.example.com' }),
        container('alpha', { 'homepage.group': 'Media', 'homepage.name': 'Alpha', 'homepage.weight': '2' }),
        container('postgres', {}),
      ]),
    );
    expect(result.boards).toHaveLength(1);
    const [board] = result.boards;
    expect(board.name).toBe('docker');
    expect(board.sections.filter((s) => s.kind === 'dynamic').map((s) => s.options?.title)).toEqual(['Media', 'Network']);
    const media = board.sections.find((s) => s.options?.title === 'Media')!;
    const inMedia = board.items.filter((item) => item.layouts[0].sectionId === media.id);
    const desktop = (item: Item) => item.layouts.find((l) => l.layout === 'Desktop')!;
    expect([...inMedia].sort((a, b) => desktop(a).yOffset - desktop(b).yOffset || desktop(a).xOffset - desktop(b).xOffset).map((item) => item.app!.name)).toEqual(['Sonarr', 'Alpha', 'Jellyfin']);
    expect(apps(result).find((app) => app.name === 'Jellyfin')).toEqual({ name: 'Jellyfin', iconUrl: 'https://cdn.jsdelivr.net/gh/homarr-labs/dashboard-icons/png/jellyfin.png', description: 'Films', href: 'https://jf.example.com' });
    expect(apps(result).find((app) => app.name === 'Sonarr')!.iconUrl).toBe('https://cdn.jsdelivr.net/npm/@mdi/svg/svg/television.svg');
    expect(entriesOf(result, 'container postgres')).toEqual([{ object: 'container postgres', label: '', status: 'skipped', detail: 'no homepage.*, glance.* or tessera.* labels (for this instance): not discovered' }]);
    expect(result.report.found).toEqual({ containers: 5, services: null });
    expect(result.report.boards).toEqual([{ name: 'docker', file: 'docker.yaml', apps: 4 }]);
  });

  it('DISC-5: homepage.instance.<name>.* labels apply to that instance only, over the plain ones', () => {
    const containers = [
      container('web', { 'homepage.group': 'Apps', 'homepage.name': 'Web', 'homepage.instance.main.href': 'https://main.example.com', 'homepage.instance.alt.href': 'https://alt.example.com' }),
      container('only-alt', { 'homepage.instance.alt.group': 'Alt', 'homepage.instance.alt.name': 'Only alt' }),
    ];
    const main = discoverDocker(answer(containers), { instance: 'main' });
    expect(apps(main).map((app) => [app.name, app.href])).toEqual([['Web', 'https://main.example.com']]);
    expect(entriesOf(main, 'container web')).toContainEqual({ object: 'container web', label: 'homepage.instance.alt.href', status: 'skipped', detail: 'for homepage instance alt, not main' });
    const alt = discoverDocker(answer(containers), { instance: 'alt' });
    expect(apps(alt).map((app) => [app.name, app.href ?? null])).toEqual([['Only alt', null], ['Web', 'https://alt.example.com']]);
    const none = discoverDocker(answer(containers));
    expect(apps(none).map((app) => app.name)).toEqual(['Web']);
    expect(entriesOf(none, 'container web')).toContainEqual({ object: 'container web', label: 'homepage.instance.main.href', status: 'skipped', detail: 'for homepage instance main: name it with --instance main to read it' });
  });

  it('DISC-7: glance labels (name, url, icon, description); hide and parent skip; homepage labels win', () => {
    const result = discoverDocker(
      answer([
        container('immich', { 'glance.name': 'Immich', 'glance.url': 'https://photos.example.com', 'glance.icon': 'si:immich', 'glance.description': 'Photos', 'glance.id': 'immich' }),
        container('immich-db', { 'glance.parent': 'immich', 'glance.name': 'DB' }),
        container('hidden', { 'glance.hide': 'true', 'glance.name': 'Hidden' }),
        container('both', { 'homepage.name': 'From homepage', 'glance.name': 'From glance' }),
      ]),
    );
    expect(apps(result).map((app) => app.name)).toEqual(['From homepage', 'Immich']);
    expect(apps(result)[1]).toEqual({ name: 'Immich', iconUrl: 'https://cdn.jsdelivr.net/npm/simple-icons/icons/immich.svg', description: 'Photos', href: 'https://photos.example.com' });
    expect(entriesOf(result, 'container immich-db')).toEqual([{ object: 'container immich-db', label: 'glance.parent', status: 'skipped', detail: 'shown with its parent immich in Glance (glance.parent): not an app of its own' }]);
    expect(entriesOf(result, 'container hidden')).toEqual([{ object: 'container hidden', label: 'glance.hide', status: 'skipped', detail: 'hidden (glance.hide): not discovered' }]);
    expect(entriesOf(result, 'container both')).toContainEqual({ object: 'container both', label: 'glance.name', status: 'unmapped', detail: "homepage labels on the same object win: Glance's are not read" });
  });

  it('DISC-6, DISC-8: tessera.board, section, width, height and ping; --board names the default board', () => {
    const result = discoverDocker(
      answer([
        container('grafana', { 'homepage.name': 'Grafana', 'homepage.group': 'Ops', 'homepage.href': 'https://grafana.example.com', 'tessera.board': 'ops', 'tessera.section': 'Monitoring', 'tessera.width': '6', 'tessera.height': '2', 'tessera.ping': 'true' }),
        container('wiki', { 'homepage.name': 'Wiki', 'homepage.href': 'https://wiki.example.com', 'tessera.ping': 'https://wiki.example.com/health', 'tessera.width': '40' }),
        container('odd', { 'tessera.board': 'Home Lab!' }),
      ]),
      { board: 'main' },
    );
    expect(result.report.boards).toEqual([
      { name: 'home-lab', file: 'home-lab.yaml', apps: 1 },
      { name: 'main', file: 'main.yaml', apps: 1 },
      { name: 'ops', file: 'ops.yaml', apps: 1 },
    ]);
    const ops = result.boards[2];
    expect(ops.sections.find((s) => s.kind === 'category')!.name).toBe('Monitoring');
    expect(ops.items[0].app).toEqual({ name: 'Grafana', iconUrl: 'https://grafana.example.com/favicon.ico', href: 'https://grafana.example.com', pingUrl: 'https://grafana.example.com' });
    expect(ops.items[0].options.pingEnabled).toBe(true);
    expect(ops.items[0].layouts.find((l) => l.layout === 'Desktop')).toMatchObject({ width: 6, height: 2 });
    expect(ops.items[0].layouts.find((l) => l.layout === 'Mobile')).toMatchObject({ width: 4, height: 2 });
    expect(result.boards[1].items[0].app!.pingUrl).toBe('https://wiki.example.com/health');
    expect(entriesOf(result, 'container wiki')).toContainEqual({ object: 'container wiki', label: 'tessera.width', status: 'unmapped', detail: "not a whole number from 1 to 12: the layout's tile size instead" });
    expect(result.boards[0].items[0].app!.name).toBe('odd');
    expect(result.boards[0].sections.find((s) => s.kind === 'category')!.name).toBe('Services');
  });
});

describe('DISC-2, DISC-9: labels are untrusted', () => {
  it('DISC-9: widget labels are reported; credentials named, never their values, never in the files', () => {
    const secret = 'sup3r-s3cret-value';
    const result = discoverDocker(
      answer([
        container('sonarr', { 'homepage.name': 'Sonarr', 'homepage.group': 'Media', 'homepage.widget.type': 'sonarr', 'homepage.widget.url': 'http://sonarr:8989', 'homepage.widget.key': secret, 'homepage.widget.password': secret, 'homepage.widget.username': 'admin-user' }),
      ]),
    );
    const text = JSON.stringify(result);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('admin-user');
    expect(text).not.toContain('http://sonarr:8989');
    const entries = entriesOf(result, 'container sonarr');
    for (const label of ['homepage.widget.key', 'homepage.widget.password', 'homepage.widget.username']) {
      expect(entries).toContainEqual({ object: 'container sonarr', label, status: 'skipped', detail: 'a credential: not read, not written anywhere (secrets do not come from labels; set it on the integration)' });
    }
    expect(entries).toContainEqual({
      object: 'container sonarr',
      label: 'homepage.widget.type',
      status: 'unmapped',
      detail: 'widget "sonarr": create an integration of kind sonarr the documented way (its secret set there), then add a calendar widget bound to it',
    });
  });

  it('DISC-2: links and icons follow the app URL rules (no script), values over the bound and other prefixes are left out', () => {
    const labels = boundedLabels({ 'homepage.name': 'Bad', 'homepage.href': 'javascript:alert(1)', 'homepage.icon': 'javascript:alert(2)', 'homepage.description': 'x'.repeat(5000), 'traefik.enable': 'true', 'homepage.weight': 7 });
    expect(Object.keys(labels)).toEqual(['homepage.description', 'homepage.href', 'homepage.icon', 'homepage.name']);
    const result = discoverDocker(answer([container('bad', { ...labels, 'homepage.group': 'G\u0000roup' })]));
    const [app] = apps(result);
    expect(app).toEqual({ name: 'Bad', iconUrl: 'https://cdn.jsdelivr.net/npm/@mdi/svg/svg/application.svg' });
    expect(result.boards[0].sections.find((s) => s.kind === 'category')!.name).toBe('Group');
    const entries = entriesOf(result, 'container bad');
    expect(entries).toContainEqual({ object: 'container bad', label: 'homepage.description', status: 'skipped', detail: 'longer than 4096 characters: left out' });
    expect(entries.find((entry) => entry.label === 'homepage.href')!.detail).toContain('javascript:alert(1): Tessera refuses it');
  });
});

describe('DISC-3: Swarm services (recorded shape of GET /v1.41/services; Podman has no Swarm)', () => {
  it('DISC-3: a service spec\'s labels (compose deploy.labels) are read as a container\'s', () => {
    const recorded = [
      { ID: 'k5c0dyyxg1s9', Version: { Index: 12 }, Spec: { Name: 'stack_whoami', Labels: { 'com.docker.stack.namespace': 'stack', 'homepage.group': 'Swarm', 'homepage.name': 'Whoami', 'homepage.href': 'https://whoami.example.com' }, TaskTemplate: {}, Mode: { Replicated: { Replicas: 2 } } } },
      { ID: 'p2x8', Spec: { Name: 'stack_db' } },
    ];
    const services = parseServiceList(recorded, 'unix:///var/run/docker.sock');
    expect(services).toEqual([
      { id: 'k5c0dyyxg1s9', name: 'stack_whoami', labels: { 'homepage.group': 'Swarm', 'homepage.href': 'https://whoami.example.com', 'homepage.name': 'Whoami' } },
      { id: 'p2x8', name: 'stack_db', labels: {} },
    ]);
    const result = discoverDocker(answer([], services));
    expect(apps(result)).toEqual([{ name: 'Whoami', iconUrl: 'https://whoami.example.com/favicon.ico', href: 'https://whoami.example.com' }]);
    expect(result.report.found).toEqual({ containers: 0, services: 2 });
    expect(() => parseServiceList({ message: 'x' }, 'h')).toThrow('h: the service list is not a list of services');
  });
});

describe('DISC-10, DISC-11: labels and determinism', () => {
  it('DISC-11: the same objects in any order give the same files; DISC-10: --managed-by is written into each file', () => {
    const objects = [
      container('b', { 'homepage.group': 'G', 'homepage.name': 'B' }),
      container('a', { 'homepage.group': 'G', 'homepage.name': 'A' }),
      container('c', { 'homepage.group': 'H', 'homepage.name': 'C' }),
    ];
    const one = discoverDocker(answer(objects), { managedBy: 'discovery:docker' });
    const two = discoverDocker(answer([...objects].reverse()), { managedBy: 'discovery:docker' });
    expect(JSON.stringify(two)).toBe(JSON.stringify(one));
    expect(one.boards[0].managedBy).toBe('discovery:docker');
    expect(discoverDocker(answer(objects)).boards[0].managedBy).toBeUndefined();
  });
});
