/**
 * DOCK-4: the dockerContainers widget: the containers of the Docker Engine API at DOCKER_HOST (the instance's, not an
 * integration's: the kind reads no bound integration). Unset, it answers one error result saying so.
 */
import type { DockerHost } from '../../../config/config';
import { describeDockerHost, listDockerContainers, type DockerContainer } from '../../../integrations/clients/docker';
import { ServiceError } from '../../../integrations/clients/types';
import type { LiveKind, WidgetOptions } from '../types';

export interface DockerContainersData {
  containers: Partial<DockerContainer>[];
}

interface Resolved {
  dockerHost: DockerHost | null;
}

/** The fields a `columns` option may name, in their default order; `id` and `name` are always kept. */
export const dockerColumns = ['name', 'image', 'state', 'status', 'created'] as const;
type Column = (typeof dockerColumns)[number];

const isColumn = (value: unknown): value is Column => typeof value === 'string' && (dockerColumns as readonly string[]).includes(value);

export const notConfiguredMessage = 'DOCKER_HOST is not configured: set it to unix:///path/to/docker.sock or tcp://host:port';

/**
 * DOCK-5, pure: the list for one item's options: sorted by `defaultSort` (a column; name otherwise), descending when
 * `descendingDefaultSort`, and only the `columns` named (when it names any known column; id and name always).
 */
export function viewDockerContainers(data: DockerContainersData, options: WidgetOptions): DockerContainersData {
  const sortBy: Column = isColumn(options.defaultSort) ? options.defaultSort : 'name';
  const direction = options.descendingDefaultSort === true ? -1 : 1;
  const sorted = [...data.containers].sort((a, b) => direction * compare(a[sortBy], b[sortBy]) || compare(a.name, b.name) || compare(a.id, b.id));
  const named = Array.isArray(options.columns) ? options.columns.filter(isColumn) : [];
  if (named.length === 0) return { containers: sorted };
  const keep = new Set<string>(['id', 'name', ...named]);
  return { containers: sorted.map((container) => Object.fromEntries(Object.entries(container).filter(([key]) => keep.has(key)))) };
}

function compare(a: unknown, b: unknown): number {
  const x = a === null || a === undefined ? '' : String(a);
  const y = b === null || b === undefined ? '' : String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export const dockerContainersKind: LiveKind<DockerContainersData, Resolved> = {
  widgetKind: 'dockerContainers',
  ttlMs: 10_000,
  integrationKinds: [],
  async resolve(env) {
    return { dockerHost: env.config.dockerHost };
  },
  query(_options, resolved) {
    return { dockerHost: resolved?.dockerHost ?? null };
  },
  sources(_options, resolved) {
    const host = resolved?.dockerHost ?? null;
    return [{ key: `docker ${host ? describeDockerHost(host) : 'unset'}`, name: 'Docker' }];
  },
  async fromSource(ctx, _source, query) {
    const host = query.dockerHost as DockerHost | null;
    if (!host) throw new ServiceError('failed', notConfiguredMessage);
    return { containers: await listDockerContainers(ctx, host) };
  },
  view: viewDockerContainers,
};
