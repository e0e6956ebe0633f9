/**
 * Discovery as a provisioning source (DISC-30..): the kinds of place a `PROVISIONING_CONFIG` entry may name instead of
 * a directory (`source: docker`, `source: kubernetes`), each behind one small interface: `read()` answers the board
 * files of what runs there now (a DiscoverResult, as `tessera discover` writes them), and `watch(onChange)`, where the
 * kind has an event stream, calls back on every change until the function it answered is called. The provisioner
 * (src/boards/fleet/provisioner.ts) applies what `read()` answers as a set, on events and on an interval.
 *
 * Also here, pure: the history message of one discovery apply (DISC-34).
 */
import type { BoardFile } from '../boards/files/file';
import { describeDiscovery, type DiscoverySpec } from './spec';
import type { DiscoverOptions, DiscoverResult } from './docker';
import { discoverFromDocker, dockerReadBounds } from './docker';
import { watchDockerEvents } from './dockerSource';
import { discoverFromKubernetes } from './kubernetes';
import { watchKubernetes, type KubernetesSource } from './kubernetesReader';

/** DISC-1: the bounds of one read of a source. */
export const discoveryReadBounds = dockerReadBounds;

/** DISC-31: one kind of discovery source. */
export interface DiscoveryReader {
  /** How the status names the source (`docker unix:///var/run/docker.sock`, `kubernetes namespaces media, tools`). */
  readonly where: string;
  /** The board files of what runs there now; throws when the source cannot be read (DISC-35: the last state stays). */
  read(): Promise<DiscoverResult>;
  /**
   * DISC-32: calls `onChange` with a description of each change the source reports (`container jellyfin started`)
   * until the answered function is called; `onError` hears a lost stream (it reconnects by itself). `ready` settles
   * once the stream is open, or failed to open (the interval still re-reads).
   */
  watch?(onChange: (change: string) => void, onError: (error: Error) => void): { stop(): void; ready: Promise<void> };
}

/** DISC-30: what a reader needs besides its spec: the label each file carries and the bounds of one read. */
export interface ReaderContext {
  managedBy: string;
  /** DISC-1's bounds of one read of the engine. */
  timeoutMs: number;
  maxBytes: number;
}

/** The options every kind passes to its discovery (DISC-6, DISC-5, DISC-10). */
function discoverOptions(spec: DiscoverySpec, context: ReaderContext): DiscoverOptions {
  return { managedBy: context.managedBy, ...(spec.board ? { board: spec.board } : {}), ...(spec.instance ? { instance: spec.instance } : {}) };
}

/**
 * DISC-37: the Kubernetes kind, read by `discoverFromKubernetes(options)` of src/discover/kubernetes.ts. DISC-26: it is
 * watched too: `watchKubernetes` (src/discover/kubernetesReader.ts) watches each kind discovery lists, and each event
 * is a change, as Docker's events are; the interval still re-reads it. A kubeconfig that cannot be used opens no
 * watch (`onError` hears why; the read reports it in the status).
 */
function kubernetesReader(spec: Extract<DiscoverySpec, { source: 'kubernetes' }>, context: ReaderContext): DiscoveryReader {
  const source: KubernetesSource = {
    ...(spec.namespaces.length > 0 ? { namespaces: spec.namespaces } : {}),
    ...(spec.kubeconfig ? { kubeconfig: spec.kubeconfig } : {}),
  };
  return {
    where: describeDiscovery(spec),
    read: () => discoverFromKubernetes({ ...discoverOptions(spec, context), ...source }),
    watch: (onChange, onError) => {
      try {
        return watchKubernetes(source, onChange, onError);
      } catch (error) {
        onError(error as Error);
        return { stop() {}, ready: Promise.resolve() };
      }
    },
  };
}

/** DISC-31: the reader of a spec. */
export function discoveryReader(spec: DiscoverySpec, context: ReaderContext): DiscoveryReader {
  if (spec.source === 'kubernetes') return kubernetesReader(spec, context);
  const host = spec.host;
  const options = discoverOptions(spec, context);
  return {
    where: describeDiscovery(spec),
    read: () => discoverFromDocker(host, options, context),
    watch: (onChange, onError) => watchDockerEvents(host, onChange, onError),
  };
}

/** HistoryOrigin.message's bound. */
const messageLength = 1024;

/** The app items of a result by their id (DISC-11: ids derive from the board and the object), with their names. */
function appsOf(boards: BoardFile[]): Map<string, { name: string; json: string }> {
  const apps = new Map<string, { name: string; json: string }>();
  for (const board of boards) {
    for (const item of board.items ?? []) {
      const app = (item as { app?: { name?: unknown } }).app;
      apps.set(`${board.name.toLowerCase()}/${item.id}`, { name: typeof app?.name === 'string' ? app.name : item.id, json: JSON.stringify(item) });
    }
  }
  return apps;
}

function cut(text: string): string {
  return text.length <= messageLength ? text : `${text.slice(0, messageLength - 1)}…`;
}

/**
 * DISC-34: the message of a discovery apply's history entries: the changes the source reported since the last apply
 * (`discovery: container jellyfin started`, `discovery: 2 changes: container a created, container b removed`), else
 * what changed between this instance's last read and this one (`discovery: app Jellyfin added`), else what was read
 * (`discovery: read docker unix:///var/run/docker.sock: 3 apps`). At most 1024 characters.
 */
export function discoveryMessage(where: string, events: string[], previous: DiscoverResult | null, next: DiscoverResult): string {
  const seen = [...new Set(events)];
  if (seen.length === 1) return cut(`discovery: ${seen[0]}`);
  if (seen.length > 1) return cut(`discovery: ${seen.length} changes: ${seen.join(', ')}`);
  const after = appsOf(next.boards);
  if (previous) {
    const before = appsOf(previous.boards);
    const changes: string[] = [];
    for (const [id, app] of after) {
      const was = before.get(id);
      if (!was) changes.push(`${app.name} added`);
      else if (was.json !== app.json) changes.push(`${app.name} changed`);
    }
    for (const [id, app] of before) if (!after.has(id)) changes.push(`${app.name} removed`);
    if (changes.length === 1) return cut(`discovery: app ${changes[0]}`);
    if (changes.length > 1) return cut(`discovery: ${changes.length} apps changed: ${changes.join(', ')}`);
  }
  return cut(`discovery: read ${where}: ${after.size} app${after.size === 1 ? '' : 's'}`);
}
