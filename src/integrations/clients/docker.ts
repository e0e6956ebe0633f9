/**
 * DOCK-3: the Docker Engine API's container list (`GET /v1.41/containers/json?all=1`), as Docker and Podman's
 * Docker-compatible service answer it, over a Unix socket or plain HTTP (`DOCKER_HOST`). Read-only: the only requests
 * this client makes are that list and, for discovery (DISC-1), Swarm's service list (`GET /v1.41/services`).
 */
import type { DockerHost } from '../../config/config';
import { outboundSocketFetch, type OutboundAnswer } from '../../outbound/fetch';
import { boundedMap } from '../../discover/services';
import { ServiceError, type ClientContext } from './types';

export interface DockerContainer {
  id: string;
  /** The first of the container's names, without Docker's leading slash. */
  name: string;
  image: string;
  /** Docker's state word: created, running, paused, restarting, removing, exited, dead. */
  state: string;
  /** Docker's human status (`Up 2 hours`, `Exited (0) 3 minutes ago`, `Created`). */
  status: string;
  /** When the container was created (ISO 8601), or null when the daemon did not say. */
  created: string | null;
}

const listPath = '/v1.41/containers/json?all=1';

/** DOCK-3: the bounds of the declared data (openapi/components/widget-data/dockerContainers.yaml). */
export const maxContainers = 1000;

/** DOCK-1: how DOCKER_HOST is shown to viewers (no path of a tcp URL exists; the socket's path is the operator's). */
export function describeDockerHost(host: DockerHost): string {
  return host.kind === 'unix' ? `unix://${host.socketPath}` : host.baseUrl.replace(/^http:/, 'tcp:');
}

/** DOCK-3, DISC-1: one GET of the Engine API at `host`; the answer as it came (status and text). */
async function dockerGet(ctx: ClientContext, host: DockerHost, path: string): Promise<OutboundAnswer> {
  const request = { timeoutMs: ctx.timeoutMs, maxBytes: ctx.maxBytes, headers: { accept: 'application/json' } };
  return host.kind === 'unix' ? (ctx.fetchSocket ?? outboundSocketFetch)(host.socketPath, path, request) : ctx.fetch(`${host.baseUrl}${path}`, request);
}

/** DOCK-3: a 2xx answer's JSON; 401/403 unauthorized, another status a failure naming it, non-JSON a bad answer. */
function answerJson(answer: OutboundAnswer, shown: string, what: string): unknown {
  if (answer.status === 401 || answer.status === 403) throw new ServiceError('unauthorized', `${shown}: the Docker API refused the ${what} (HTTP ${answer.status})`);
  if (answer.status < 200 || answer.status >= 300) throw new ServiceError('failed', `${shown}: the Docker API answered HTTP ${answer.status}`);
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new ServiceError('bad-answer', `${shown}: the ${what} is not JSON`);
  }
}

export async function listDockerContainers(ctx: ClientContext, host: DockerHost): Promise<DockerContainer[]> {
  const shown = describeDockerHost(host);
  return parseContainerList(answerJson(await dockerGet(ctx, host, listPath), shown, 'container list'), shown);
}

/** DISC-1, DISC-2: a container or Swarm service as discovery sees it: its name, id and labels (bounded). */
export interface DockerLabelled {
  id: string;
  name: string;
  labels: Record<string, string>;
}

export interface DockerDiscoveryAnswer {
  containers: DockerLabelled[];
  /** Swarm's services; null when the engine is not a Swarm manager (it answers 404, 500, 501 or 503). */
  services: DockerLabelled[] | null;
}

export { labelLimits } from '../../discover/services';

/** DISC-2: the label vocabularies discovery reads (homepage's, Glance's, Tessera's own). */
export const discoveryPrefixes = ['homepage.', 'glance.', 'tessera.'] as const;

/** DISC-1: statuses a non-Swarm engine answers for the service list: "no swarm", not an error. */
const noSwarmStatuses = [404, 500, 501, 503];

/**
 * DISC-1: the containers (all, `GET /v1.41/containers/json?all=1`) and, when the engine is a Swarm manager, the
 * services (`GET /v1.41/services`, their spec's labels: compose's `deploy.labels`), with their labels. Read-only.
 */
export async function readDockerLabels(ctx: ClientContext, host: DockerHost): Promise<DockerDiscoveryAnswer> {
  const shown = describeDockerHost(host);
  const containerList = answerJson(await dockerGet(ctx, host, listPath), shown, 'container list');
  const containers = parseContainerList(containerList, shown);
  const serviceAnswer = await dockerGet(ctx, host, servicesPath);
  const services = noSwarmStatuses.includes(serviceAnswer.status) ? null : parseServiceList(answerJson(serviceAnswer, shown, 'service list'), shown);
  return {
    containers: containers.map((container, index) => ({ id: container.id, name: container.name, labels: boundedLabels((containerList as Record<string, unknown>[])[index].Labels) })),
    services,
  };
}

const servicesPath = '/v1.41/services';

/** DISC-1: Swarm's service list: `[{ID, Spec: {Name, Labels}}]`; anything else is a bad answer. */
export function parseServiceList(body: unknown, shown: string): DockerLabelled[] {
  if (!Array.isArray(body) || !body.every((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry))) {
    throw new ServiceError('bad-answer', `${shown}: the service list is not a list of services`);
  }
  return body.slice(0, maxContainers).map((entry: Record<string, unknown>) => {
    const spec = typeof entry.Spec === 'object' && entry.Spec !== null ? (entry.Spec as Record<string, unknown>) : {};
    const id = text(entry.ID, 128);
    return { id, name: text(spec.Name, 256) || id.slice(0, 12), labels: boundedLabels(spec.Labels) };
  });
}

/**
 * DISC-2: a label map as discovery keeps it: the labels of its vocabularies only (`homepage.`, `glance.`,
 * `tessera.`), string values only, at most `labelLimits.labels` of them (by name order),
 * keys and values over their bounds left out (a key) or cut (a value is cut one character past the bound, so the
 * mapping can say it was too long).
 */
export function boundedLabels(value: unknown): Record<string, string> {
  return boundedMap(value, discoveryPrefixes);
}

/**
 * DOCK-3: the daemon's list in Tessera's shape; anything but an array of objects is a bad answer, odd fields become
 * empty, text is cut to the declared lengths and the list to `maxContainers`.
 */
export function parseContainerList(body: unknown, shown: string): DockerContainer[] {
  if (!Array.isArray(body) || !body.every((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry))) {
    throw new ServiceError('bad-answer', `${shown}: the container list is not a list of containers`);
  }
  return body.slice(0, maxContainers).map((entry: Record<string, unknown>) => {
    const names = Array.isArray(entry.Names) ? entry.Names.filter((name): name is string => typeof name === 'string') : [];
    const id = text(entry.Id, 128);
    const created = typeof entry.Created === 'number' && Number.isFinite(entry.Created) ? new Date(entry.Created * 1000) : null;
    return {
      id,
      name: (names[0] ?? id.slice(0, 12)).replace(/^\//, '').slice(0, 256),
      image: text(entry.Image, 1024),
      state: text(entry.State, 64),
      status: text(entry.Status, 256),
      created: created && !Number.isNaN(created.getTime()) ? created.toISOString() : null,
    };
  });
}

const text = (value: unknown, maxLength: number): string => (typeof value === 'string' ? value.slice(0, maxLength) : '');
