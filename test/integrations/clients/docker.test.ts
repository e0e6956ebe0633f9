import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, dockerHostFrom, loadConfig } from '../../../src/config/config';
import { listDockerContainers, parseContainerList } from '../../../src/integrations/clients/docker';
import { ServiceError, type ClientContext } from '../../../src/integrations/clients/types';
import { OutboundError, outboundFetch, outboundSocketFetch } from '../../../src/outbound/fetch';
import { dockerContainersKind, notConfiguredMessage, viewDockerContainers } from '../../../src/widgets/data/kinds/dockerContainers';
import { liveKinds } from '../../../src/widgets/data/kinds';
import type { KindEnvironment } from '../../../src/widgets/data/types';
import { startPodman, type PodmanService } from '../../support/podman';
import { unique } from '../../support/unique';

const ctx: ClientContext = { fetch: outboundFetch, timeoutMs: 30_000, maxBytes: 1024 * 1024, now: () => new Date() };

/** The kind's request as the widget-data service makes it: resolve, query, sources, fromSource, view. */
async function kindData(env: Record<string, string>, options: Record<string, unknown> = {}) {
  // The docker kind reads only the configuration; it never touches the database.
  const environment = { config: loadConfig(env), db: undefined } as unknown as KindEnvironment;
  const kind = dockerContainersKind;
  const resolved = await kind.resolve!(environment, options);
  const query = kind.query(options, resolved);
  const sources = kind.sources!(options, resolved);
  expect(sources).toHaveLength(1);
  const data = await kind.fromSource!(ctx, sources[0]!, query);
  return kind.view!(data, options, resolved);
}

describe('DOCK-1: DOCKER_HOST', () => {
  it('DOCK-1: reads unix:// and tcp:// addresses, nothing when unset, and refuses anything else at start', () => {
    expect(dockerHostFrom({})).toBeNull();
    expect(dockerHostFrom({ DOCKER_HOST: 'unix:///var/run/docker.sock' })).toEqual({ kind: 'unix', socketPath: '/var/run/docker.sock' });
    expect(dockerHostFrom({ DOCKER_HOST: 'tcp://socket-proxy:2375' })).toEqual({ kind: 'tcp', baseUrl: 'http://socket-proxy:2375' });
    for (const bad of ['/var/run/docker.sock', 'unix://relative.sock', 'tcp://host', 'http://host:2375', 'tcp://user@host:2375', 'ssh://host']) {
      expect(() => dockerHostFrom({ DOCKER_HOST: bad })).toThrow(ConfigError);
    }
  });
});

describe('DOCK-3, DOCK-4: the container list of a real Podman Docker API service', () => {
  let podman: PodmanService;
  const names = { web: unique('web-'), db: unique('db-') };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    podman = await startPodman();
    ids.web = await podman.createContainer(names.web, { 'homepage.name': 'Web' });
    ids.db = await podman.createContainer(names.db);
  }, 300_000);
  afterAll(async () => {
    await podman?.stop();
  }, 120_000);

  it('DOCK-3: lists every container (created ones too) with name without the slash, image, state, status, created and id', async () => {
    const containers = await listDockerContainers(ctx, { kind: 'unix', socketPath: podman.socketPath });
    expect(containers.map((c) => c.name).sort()).toEqual([names.db, names.web].sort());
    const web = containers.find((c) => c.name === names.web)!;
    expect(web.id).toBe(ids.web);
    expect(web.image).toBe(podman.image);
    expect(['created', 'exited']).toContain(web.state);
    expect(web.status.length).toBeGreaterThan(0);
    expect(Date.parse(web.created!)).not.toBeNaN();
  });

  it('DOCK-4: the kind is listed, reads DOCKER_HOST, and shapes the list by the options (sort, columns)', async () => {
    expect(liveKinds.map((kind) => kind.widgetKind)).toContain('dockerContainers');
    const all = await kindData({ DOCKER_HOST: `unix://${podman.socketPath}` });
    expect(all.containers.map((c) => c.name)).toEqual([names.db, names.web].sort());
    const shaped = await kindData({ DOCKER_HOST: `unix://${podman.socketPath}` }, { columns: ['state', 'bogus'], defaultSort: 'name', descendingDefaultSort: true });
    expect(shaped.containers.map((c) => c.name)).toEqual([names.db, names.web].sort().reverse());
    for (const container of shaped.containers) expect(Object.keys(container).sort()).toEqual(['id', 'name', 'state']);
  });

  it('DOCK-1, DOCK-3: the same list over tcp:// (plain HTTP through the bounded fetcher)', async () => {
    const host = await podman.serveTcp();
    const all = await kindData({ DOCKER_HOST: host });
    expect(all.containers.map((c) => c.name)).toEqual([names.db, names.web].sort());
  });

  it('DOCK-2: the socket fetcher caps the answer like outboundFetch', async () => {
    await expect(outboundSocketFetch(podman.socketPath, '/v1.41/containers/json?all=1', { timeoutMs: 30_000, maxBytes: 64 })).rejects.toMatchObject({ reason: 'too-large' });
  });
});

describe('DOCK-2, DOCK-4: failures are data with readable, bounded messages', () => {
  let dir: string;
  let server: Server;
  let answer: (res: import('node:http').ServerResponse) => void = (res) => res.end('[]');

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tessera-dock-'));
    server = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(path.join(dir, 'hostile.sock'), resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('DOCK-4: without DOCKER_HOST the kind answers one error saying DOCKER_HOST is not configured', async () => {
    const error = await kindData({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as Error).message).toBe(notConfiguredMessage);
  });

  it('DOCK-2: a socket that does not exist is unreachable; one that never answers hits the deadline', async () => {
    await expect(outboundSocketFetch(path.join(dir, 'missing.sock'), '/_ping', { timeoutMs: 30_000, maxBytes: 1024 })).rejects.toMatchObject({ reason: 'unreachable' });
    answer = () => undefined;
    const error = await outboundSocketFetch(path.join(dir, 'hostile.sock'), '/_ping', { timeoutMs: 200, maxBytes: 1024 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect(error).toMatchObject({ reason: 'timeout' });
  });

  it('DOCK-2: a redirect is answered as it came, never followed', async () => {
    answer = (res) => {
      res.writeHead(302, { location: 'http://elsewhere.invalid/' });
      res.end();
    };
    const got = await outboundSocketFetch(path.join(dir, 'hostile.sock'), '/x', { timeoutMs: 30_000, maxBytes: 1024 });
    expect(got.status).toBe(302);
  });

  it('DOCK-3: markup, a wrong shape or a refusal from the daemon is a bad answer or an error, never data', async () => {
    const host = { kind: 'unix', socketPath: path.join(dir, 'hostile.sock') } as const;
    answer = (res) => res.end('<script>alert(1)</script>');
    await expect(listDockerContainers(ctx, host)).rejects.toMatchObject({ reason: 'bad-answer' });
    answer = (res) => res.end('{"containers": []}');
    await expect(listDockerContainers(ctx, host)).rejects.toMatchObject({ reason: 'bad-answer' });
    answer = (res) => {
      res.writeHead(403);
      res.end('{"message":"denied by the socket proxy"}');
    };
    await expect(listDockerContainers(ctx, host)).rejects.toMatchObject({ reason: 'unauthorized' });
    expect(parseContainerList([{ Id: 'abc', Names: 'not a list', Created: 'x' }], 'd')).toEqual([{ id: 'abc', name: 'abc', image: '', state: '', status: '', created: null }]);
  });

  it('DOCK-5: view sorts by a known column (name otherwise) and keeps id and name whatever the columns', () => {
    const data = { containers: [{ id: '2', name: 'b', state: 'exited', created: '2026-01-02T00:00:00.000Z' }, { id: '1', name: 'a', state: 'running', created: '2026-01-03T00:00:00.000Z' }] };
    expect(viewDockerContainers(data, {}).containers.map((c) => c.id)).toEqual(['1', '2']);
    expect(viewDockerContainers(data, { defaultSort: 'created', descendingDefaultSort: true }).containers.map((c) => c.id)).toEqual(['1', '2']);
    expect(viewDockerContainers(data, { defaultSort: 'state' }).containers.map((c) => c.id)).toEqual(['2', '1']);
    expect(viewDockerContainers(data, { defaultSort: { weird: true }, columns: 'image' }).containers[0]).toEqual(data.containers[1]);
  });
});
