/**
 * DOCK-3: the Docker Engine API's container list (`GET /v1.41/containers/json?all=1`), as Docker and Podman's
 * Docker-compatible service answer it, over a Unix socket or plain HTTP (`DOCKER_HOST`). Read-only: the only request
 * this client makes is that list.
 */
import type { DockerHost } from '../../config/config';
import { outboundSocketFetch, type OutboundAnswer } from '../../outbound/fetch';
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

export async function listDockerContainers(ctx: ClientContext, host: DockerHost): Promise<DockerContainer[]> {
  const request = { timeoutMs: ctx.timeoutMs, maxBytes: ctx.maxBytes, headers: { accept: 'application/json' } };
  const answer: OutboundAnswer =
    host.kind === 'unix' ? await (ctx.fetchSocket ?? outboundSocketFetch)(host.socketPath, listPath, request) : await ctx.fetch(`${host.baseUrl}${listPath}`, request);
  const shown = describeDockerHost(host);
  if (answer.status === 401 || answer.status === 403) throw new ServiceError('unauthorized', `${shown}: the Docker API refused the container list (HTTP ${answer.status})`);
  if (answer.status < 200 || answer.status >= 300) throw new ServiceError('failed', `${shown}: the Docker API answered HTTP ${answer.status}`);
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new ServiceError('bad-answer', `${shown}: the container list is not JSON`);
  }
  return parseContainerList(body, shown);
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
