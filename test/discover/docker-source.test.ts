/**
 * DISC-1: what discovery asks the engine, over plain HTTP (`tcp://`), of a stand-in that answers as Docker does: the
 * container list, then the service list (a Swarm manager's list, or 503 from an engine that is not one). The real
 * engine's answers are tested against Podman in test/cli/discover.test.ts; Podman has no Swarm.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readDockerLabels } from '../../src/integrations/clients/docker';
import { ServiceError, type ClientContext } from '../../src/integrations/clients/types';
import { outboundFetch } from '../../src/outbound/fetch';

const ctx: ClientContext = { fetch: outboundFetch, timeoutMs: 10_000, maxBytes: 1024 * 1024, now: () => new Date() };

let server: Server;
let services: { status: number; body: string };
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    if (req.url === '/v1.41/containers/json?all=1') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ Id: 'c1', Names: ['/web'], Image: 'nginx', State: 'running', Status: 'Up', Created: 1, Labels: { 'homepage.name': 'Web', 'traefik.enable': 'true' } }]));
      return;
    }
    res.writeHead(services.status, { 'content-type': 'application/json' });
    res.end(services.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const host = () => ({ kind: 'tcp' as const, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });

describe('DISC-1: the engine read', () => {
  beforeEach(() => (asked.length = 0));

  it('DISC-1: GETs the container list and the service list only; a non-Swarm engine\'s 503 is "no swarm"', async () => {
    services = { status: 503, body: JSON.stringify({ message: 'This node is not a swarm manager.' }) };
    const answer = await readDockerLabels(ctx, host());
    expect(asked).toEqual(['GET /v1.41/containers/json?all=1', 'GET /v1.41/services']);
    expect(answer).toEqual({ containers: [{ id: 'c1', name: 'web', labels: { 'homepage.name': 'Web' } }], services: null });
    services = { status: 500, body: '{}' };
    expect((await readDockerLabels(ctx, host())).services).toBeNull();
  });

  it('DISC-1: a Swarm manager\'s services come with their spec\'s labels; a refused service list is an error', async () => {
    services = { status: 200, body: JSON.stringify([{ ID: 's1', Spec: { Name: 'stack_app', Labels: { 'homepage.group': 'Swarm' } } }]) };
    expect((await readDockerLabels(ctx, host())).services).toEqual([{ id: 's1', name: 'stack_app', labels: { 'homepage.group': 'Swarm' } }]);
    services = { status: 403, body: '{}' };
    const refused = readDockerLabels(ctx, host());
    await expect(refused).rejects.toThrow(ServiceError);
    await expect(readDockerLabels(ctx, host())).rejects.toThrow(`tcp://127.0.0.1:${(server.address() as AddressInfo).port}: the Docker API refused the service list (HTTP 403)`);
  });
});
