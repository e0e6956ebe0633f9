/**
 * The Docker kind of a discovery provisioning source (DISC-31, DISC-32): one read is `discoverFromDocker` (the engine's
 * container and service lists, DISC-1, read-only); the watch is the engine's event stream
 * (`GET /v1.41/events`, filtered to container and service events), read line by line, reconnecting when it ends.
 * An event says only which object did what (`container jellyfin started`): its attributes (the labels among them,
 * credentials too) are never kept (DISC-9).
 */
import { request, type ClientRequest } from 'node:http';
import type { DockerHost } from '../config/config';
import { describeDockerHost } from '../integrations/clients/docker';
import { describeChange, readLines, reconnecting } from './eventStream';

const eventsPath = `/v1.41/events?filters=${encodeURIComponent(JSON.stringify({ type: ['container', 'service'] }))}`;

/** DISC-32: Docker's action words as the message says them. */
const verbs: Record<string, string> = {
  create: 'created',
  start: 'started',
  restart: 'restarted',
  stop: 'stopped',
  die: 'exited',
  kill: 'killed',
  pause: 'paused',
  unpause: 'unpaused',
  destroy: 'removed',
  remove: 'removed',
  rename: 'renamed',
  update: 'updated',
};

/**
 * DISC-32: one event line as a change (`container jellyfin started`), or null for a line that is not a container or
 * service event. Only the type, the action and the object's name are read.
 */
export function describeDockerEvent(line: string): string | null {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof event !== 'object' || event === null) return null;
  const { Type, Action, Actor } = event as { Type?: unknown; Action?: unknown; Actor?: { ID?: unknown; Attributes?: { name?: unknown } } };
  if (Type !== 'container' && Type !== 'service') return null;
  const action = typeof Action === 'string' ? Action.split(':')[0].trim() : '';
  const named = Actor?.Attributes?.name;
  const name = typeof named === 'string' && named !== '' ? named.slice(0, 64) : typeof Actor?.ID === 'string' ? Actor.ID.slice(0, 12) : '?';
  return describeChange(Type, name, verbs[action] ?? action);
}

/**
 * DISC-32: watches the engine's events until `stop()`; each container or service event is handed to `onChange`, a
 * failed or ended stream to `onError`, then it reconnects after 5 s (doubled while it keeps failing, at most 60 s;
 * src/discover/eventStream.ts). `ready` settles once the first answer came (or the first attempt failed).
 */
export function watchDockerEvents(host: DockerHost, onChange: (change: string) => void, onError: (error: Error) => void): { stop(): void; ready: Promise<void> } {
  const shown = describeDockerHost(host);
  return reconnecting((attempt) => {
    const where = host.kind === 'unix' ? { socketPath: host.socketPath } : { host: new URL(host.baseUrl).hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(new URL(host.baseUrl).port) };
    const req: ClientRequest = request({ ...where, path: eventsPath, method: 'GET', headers: { accept: 'application/json' } }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        attempt.lost(new Error(`${shown}: the Docker API answered HTTP ${response.statusCode} to the event stream`));
        return;
      }
      attempt.opened();
      readLines(response, (line) => {
        const change = describeDockerEvent(line);
        if (change && attempt.current) onChange(change);
      });
      response.on('end', () => attempt.lost(new Error(`${shown}: the event stream ended`)));
      response.on('error', (error) => attempt.lost(new Error(`${shown}: ${error.message}`)));
    });
    req.on('error', (error) => attempt.lost(new Error(`${shown}: ${error.message}`)));
    req.end();
    return () => req.destroy();
  }, onError);
}
