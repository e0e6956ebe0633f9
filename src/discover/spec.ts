/**
 * DISC-30: a discovery source as a `PROVISIONING_CONFIG` entry names it, and how the status names it. Kept apart from
 * the readers (src/discover/sources.ts), which an instance loads only when it has a discovery source.
 */
import type { DockerHost } from '../config/config';
import { describeDockerHost } from '../integrations/clients/docker';

/** DISC-30: a discovery source as a `PROVISIONING_CONFIG` entry names it (checked when the configuration is read). */
export type DiscoverySpec =
  | { source: 'docker'; host: DockerHost; board?: string; instance?: string; intervalMs: number }
  | { source: 'kubernetes'; namespaces: string[]; kubeconfig: string | null; board?: string; instance?: string; intervalMs: number };

/** DISC-30: how the status names a source. */
export function describeDiscovery(spec: DiscoverySpec): string {
  if (spec.source === 'docker') return `docker ${describeDockerHost(spec.host)}`;
  return `kubernetes ${spec.namespaces.length > 0 ? `namespaces ${spec.namespaces.join(', ')}` : 'all namespaces'}${spec.kubeconfig ? ` (${spec.kubeconfig})` : ''}`;
}

