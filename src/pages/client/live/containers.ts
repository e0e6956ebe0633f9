/**
 * LIVEVIEW-10 `dockerContainers`: the containers (sorted and narrowed to the options' columns by the server, DOCK-5)
 * with their state in words.
 */
import type { components } from '../../../../generated/api';
import { el } from '../dom';
import type { LiveView } from './controller';
import { perResult, table } from './parts';

type Containers = components['schemas']['DockerContainersData'];

export const dockerContainersView: LiveView = {
  empty: () => 'No container engine: the server has no DOCKER_HOST.',
  draw: (results) =>
    perResult<Containers>(results, (data) => {
      if (data.containers.length === 0) return [el('p', { className: 'live-state', text: 'No containers.' })];
      const has = (field: 'state' | 'image' | 'status') => data.containers.some((container) => container[field] !== undefined);
      const columns = [
        { label: 'Name', field: 'name' as const, grow: true },
        ...(has('state') ? [{ label: 'State', field: 'state' as const }] : []),
        ...(has('status') ? [{ label: 'Status', field: 'status' as const, optional: true }] : []),
        ...(has('image') ? [{ label: 'Image', field: 'image' as const, optional: true }] : []),
      ];
      return [
        table(
          columns,
          data.containers.map((container) =>
            columns.map((column) =>
              column.field === 'state' ? el('span', { className: 'live-state-word', dataset: { state: container.state ?? '' }, text: container.state ?? '' }) : (container[column.field] ?? ''),
            ),
          ),
        ),
      ];
    }),
};
