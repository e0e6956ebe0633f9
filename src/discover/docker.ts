/**
 * Docker discovery (DISC-3..12), pure: the labels of the containers and Swarm services an Engine API answered, in;
 * board files (the converters' format, built with their building blocks: app items, icon notations, a section per
 * group) and a report of what was found, mapped and skipped, out. No I/O here: src/cli/discover.ts reads the engine
 * (src/integrations/clients/docker.ts) and writes the files.
 *
 * Vocabularies: homepage's labels (`homepage.*`, `homepage.instance.<name>.*`, Swarm services' `deploy.labels`),
 * Glance's (`glance.*`), and Tessera's own (`tessera.*`) where homepage's has no word. Labels are untrusted input.
 */
import type { DockerHost } from '../config/config';
import type { Context } from '../convert/common';
import { readDockerLabels, type DockerDiscoveryAnswer, type DockerLabelled } from '../integrations/clients/docker';
import { outboundFetch } from '../outbound/fetch';
import {
  cleanLabels,
  compareName,
  compareText,
  discoverServices,
  isWidgetKey,
  objectSource,
  placeService,
  reportWidgets,
  type Discovered,
  type DiscoverOptions,
  type DiscoverResult,
  type Placed,
  type Report,
  type Where,
} from './services';

export { sizeBounds, type DiscoverEntry, type DiscoverOptions, type DiscoverReport, type DiscoverResult, type DiscoverStatus } from './services';

export const defaultDiscoveredBoard = 'docker';
/** DISC-6: the section of the objects that name no group. */
export const defaultGroup = 'Services';

/** DISC-1: where the engine is when DOCKER_HOST is unset, as Docker's own clients assume. */
export const defaultDockerHost: DockerHost = { kind: 'unix', socketPath: '/var/run/docker.sock' };

/** DISC-1: the bounds of one read of the engine. */
/** DISC-1: the bounds of one read of the engine (the command's and the provisioning source's). */
export const dockerReadBounds = { timeoutMs: 30_000, maxBytes: 16 * 1024 * 1024 } as const;

/** homepage's labels Tessera reads (after the instance merge), besides `widget.*`. */
const homepageKeys = ['group', 'name', 'icon', 'href', 'description', 'weight', 'target', 'siteMonitor'] as const;
const homepageOther: Record<string, string> = {
  ping: 'host ping (ICMP): Tessera pings http(s) addresses; use tessera.ping',
  server: 'container status: a dockerContainers widget shows the containers of DOCKER_HOST',
  container: 'container status: a dockerContainers widget shows the containers of DOCKER_HOST',
  showStats: 'container stats: no Tessera equivalent',
  statusStyle: 'status display style: Tessera shows one status dot',
};
const glanceKeys = ['name', 'url', 'icon', 'description', 'hide', 'parent', 'id', 'same-tab'] as const;
const tesseraKeys = ['board', 'section', 'width', 'height', 'ping'] as const;

/** One container or service's labels sorted into the vocabularies (DISC-4, DISC-5). */
interface Sorted {
  homepage: Map<string, Where>;
  glance: Map<string, Where>;
  tessera: Map<string, Where>;
}

interface Found {
  found: Discovered;
  object: DockerLabelled;
}

/**
 * DISC-2, DISC-4, DISC-5: the labels of one object, control characters removed, values over the bound skipped, sorted
 * into homepage's (the instance's labels over the plain ones), Glance's and Tessera's. Reports what it leaves out.
 */
function sortLabels(object: DockerLabelled, options: DiscoverOptions, skip: Report): Sorted {
  const sorted: Sorted = { homepage: new Map(), glance: new Map(), tessera: new Map() };
  const instanced: [string, Where][] = [];
  for (const { label, value } of cleanLabels(object.labels, skip)) {
    const instance = /^homepage\.instance\.([^.]+)\.(.+)$/.exec(label);
    if (instance) {
      if (options.instance === undefined) skip(label, 'skipped', `for homepage instance ${instance[1]}: name it with --instance ${instance[1]} to read it`);
      else if (instance[1] !== options.instance) skip(label, 'skipped', `for homepage instance ${instance[1]}, not ${options.instance}`);
      else instanced.push([instance[2], { value, label }]);
      continue;
    }
    const [prefix, ...rest] = label.split('.');
    const key = rest.join('.');
    if (prefix === 'homepage') sorted.homepage.set(key, { value, label });
    else if (prefix === 'glance') sorted.glance.set(key, { value, label });
    else if (prefix === 'tessera') sorted.tessera.set(key, { value, label });
  }
  // DISC-5: the instance's labels win over the plain ones.
  for (const [key, where] of instanced) sorted.homepage.set(key, where);
  return sorted;
}

/**
 * DISC-6..9: one object as an app item on its board and group, or null when it is skipped (no labels of the
 * vocabularies, `glance.hide`, a `glance.parent` child).
 */
function mapObject(ctx: Context, { found, object }: Found, options: DiscoverOptions, report: Report): Placed | null {
  const sorted = sortLabels(object, options, report);
  const home = (key: string) => sorted.homepage.get(key);
  const glance = (key: string) => sorted.glance.get(key);
  const tessera = (key: string) => sorted.tessera.get(key);
  const hasHomepage = sorted.homepage.size > 0;
  // DISC-7: Glance's labels count only where Glance would show the container on its own.
  let useGlance = sorted.glance.size > 0;
  if (useGlance && !hasHomepage && glance('hide')?.value.toLowerCase() === 'true') {
    report(glance('hide')!.label, 'skipped', 'hidden (glance.hide): not discovered');
    return null;
  }
  if (useGlance && !hasHomepage && glance('parent')) {
    report(glance('parent')!.label, 'skipped', `shown with its parent ${glance('parent')!.value} in Glance (glance.parent): not an app of its own`);
    return null;
  }
  if (hasHomepage) useGlance = false;
  if (!hasHomepage && !useGlance && sorted.tessera.size === 0) {
    report('', 'skipped', 'no homepage.*, glance.* or tessera.* labels (for this instance): not discovered');
    return null;
  }
  for (const [key, where] of sorted.glance) {
    if (!useGlance) report(where.label, 'unmapped', 'homepage labels on the same object win: Glance\'s are not read');
    else if (!(glanceKeys as readonly string[]).includes(key)) report(where.label, 'unmapped', 'not a Glance label Tessera reads');
  }
  for (const [key, where] of sorted.tessera) if (!(tesseraKeys as readonly string[]).includes(key)) report(where.label, 'unmapped', 'not a tessera label (board, section, width, height, ping)');
  reportWidgets(sorted.homepage, 'labels', report);
  for (const [key, where] of sorted.homepage) {
    if ((homepageKeys as readonly string[]).includes(key) || isWidgetKey(key)) continue;
    report(where.label, 'unmapped', homepageOther[key] ?? 'not a homepage label Tessera reads');
  }

  const pick = (...candidates: (Where | undefined)[]) => candidates.find((where) => where && where.value !== '');
  const target = home('target');
  const sameTab = useGlance ? glance('same-tab') : undefined;
  return placeService(
    ctx,
    found,
    {
      name: pick(home('name'), useGlance ? glance('name') : undefined),
      href: pick(home('href'), useGlance ? glance('url') : undefined),
      icon: pick(home('icon'), useGlance ? glance('icon') : undefined),
      description: pick(home('description'), useGlance ? glance('description') : undefined),
      group: pick(home('group')),
      weight: home('weight'),
      siteMonitor: home('siteMonitor'),
      openInNewTab: target ? target.value === '_blank' : sameTab ? sameTab.value.toLowerCase() !== 'true' : true,
      tessera: { board: tessera('board'), section: pick(tessera('section')), width: tessera('width'), height: tessera('height'), ping: tessera('ping') },
    },
    options,
    { board: defaultDiscoveredBoard, group: defaultGroup, word: 'label' },
    report,
  );
}

/**
 * DISC-3..12: the containers and services an engine answered as board files: one app item per discovered object, a
 * section per group (groups by name), items by weight then name, one file per board (boards by name), and the report.
 * The same answer gives the same files, byte for byte (DISC-11).
 */
export function discoverDocker(answer: DockerDiscoveryAnswer, options: DiscoverOptions = {}): DiscoverResult {
  const byName = (a: DockerLabelled, b: DockerLabelled) => compareName(a.name, b.name) || compareText(a.id, b.id);
  const found = (kind: 'container' | 'service') => (object: DockerLabelled): Found => ({
    object,
    found: { kind, name: object.name, key: `${kind}:${object.name}`, source: objectSource(`${kind} ${object.name}`, object.labels) },
  });
  const objects = [...[...answer.containers].sort(byName).map(found('container')), ...[...(answer.services ?? [])].sort(byName).map(found('service'))];
  const { boards, reportBoards, entries } = discoverServices(objects, options, (ctx, object, report) => mapObject(ctx, object, options, report));
  return {
    boards,
    report: { source: 'docker', found: { containers: answer.containers.length, services: answer.services?.length ?? null }, boards: reportBoards, entries },
  };
}

/**
 * DISC-1, DISC-25: reads the engine at `host` (read-only: the container list and Swarm's service list) and maps what it
 * answered: `tessera discover docker` and the server's discovery source both come here.
 */
export async function discoverFromDocker(
  host: DockerHost,
  options: DiscoverOptions = {},
  bounds: { timeoutMs: number; maxBytes: number } = dockerReadBounds,
): Promise<DiscoverResult> {
  const answer = await readDockerLabels({ fetch: outboundFetch, timeoutMs: bounds.timeoutMs, maxBytes: bounds.maxBytes, now: () => new Date() }, host);
  return discoverDocker(answer, options);
}
