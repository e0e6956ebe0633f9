/**
 * Docker discovery (DISC-3..12), pure: the labels of the containers and Swarm services an Engine API answered, in;
 * board files (the converters' format, built with their building blocks: app items, icon notations, a section per
 * group) and a report of what was found, mapped and skipped, out. No I/O here: src/cli/discover.ts reads the engine
 * (src/integrations/clients/docker.ts) and writes the files.
 *
 * Vocabularies: homepage's labels (`homepage.*`, `homepage.instance.<name>.*`, Swarm services' `deploy.labels`),
 * Glance's (`glance.*`), and Tessera's own (`tessera.*`) where homepage's has no word. Labels are untrusted input.
 */
import { boardNameOf, buildBoardFile, type BoardFile, type DraftItem, type DraftSection } from '../convert/build';
import { appItem, newContext, type Context } from '../convert/common';
import { serviceWidgets } from '../convert/homepage';
import type { IconBases } from '../convert/icons';
import type { ReportStatus } from '../convert/report';
import { controlCharacters, ConvertError, SourceSet, type SourceFile } from '../convert/source';
import { labelLimits, type DockerDiscoveryAnswer, type DockerLabelled } from '../integrations/clients/docker';

export interface DiscoverOptions {
  /** DISC-6: the board of the objects without `tessera.board` (default `docker`). */
  board?: string;
  /** DISC-10: the `managedBy` label each file carries. */
  managedBy?: string;
  /** DISC-5: the homepage instance whose `homepage.instance.<name>.*` labels apply. */
  instance?: string;
  iconBases?: IconBases;
}

export type DiscoverStatus = ReportStatus | 'skipped';

export interface DiscoverEntry {
  /** `container <name>` or `service <name>`. */
  object: string;
  /** The label the entry is about ('' for the object as a whole). */
  label: string;
  status: DiscoverStatus;
  detail: string;
}

export interface DiscoverReport {
  source: 'docker';
  /** What the engine answered: containers, and Swarm services (null: not a Swarm manager). */
  found: { containers: number; services: number | null };
  boards: { name: string; file: string; apps: number }[];
  entries: DiscoverEntry[];
}

export interface DiscoverResult {
  boards: BoardFile[];
  report: DiscoverReport;
}

export const defaultDiscoveredBoard = 'docker';
/** DISC-6: the section of the objects that name no group. */
export const defaultGroup = 'Services';
/** DISC-8: the bounds of `tessera.width` and `tessera.height` (the desktop layout's columns). */
export const sizeBounds = { width: 12, height: 12 } as const;

const boardNamePattern = /^[A-Za-z0-9_-]{1,200}$/;

/** DISC-9: a `homepage.widget.*` label whose last word names a credential: never read further, never written. */
const credentialWord = /(key|password|passwd|pass|username|user|token|secret|auth|cookie|session|hash|credential)/i;

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

type Where = { value: string; label: string };

/** One container or service's labels sorted into the vocabularies (DISC-4, DISC-5). */
interface Sorted {
  homepage: Map<string, Where>;
  glance: Map<string, Where>;
  tessera: Map<string, Where>;
}

interface Found {
  kind: 'container' | 'service';
  object: DockerLabelled;
  source: SourceFile;
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** DISC-11: names compare letter case ignored first, then as written, so the order never depends on a locale. */
const compareName = (a: string, b: string) => compareText(a.toLowerCase(), b.toLowerCase()) || compareText(a, b);

/** The place an object's report entries name. */
function objectSource(kind: Found['kind'], object: DockerLabelled): SourceFile {
  const name = `${kind} ${object.name}`;
  return { name, data: object.labels, fail: (_at, reason) => new ConvertError(name, null, null, reason), where: (at) => at.join('.'), cleaned: [] };
}

/**
 * DISC-2, DISC-4, DISC-5: the labels of one object, control characters removed, values over the bound skipped, sorted
 * into homepage's (the instance's labels over the plain ones), Glance's and Tessera's. Reports what it leaves out.
 */
function sortLabels(found: Found, options: DiscoverOptions, skip: (label: string, status: DiscoverStatus, detail: string) => void): Sorted {
  const sorted: Sorted = { homepage: new Map(), glance: new Map(), tessera: new Map() };
  const instanced: [string, Where][] = [];
  for (const [rawKey, rawValue] of Object.entries(found.object.labels).sort(([a], [b]) => compareText(a, b))) {
    const label = rawKey.replace(controlCharacters, '');
    const value = rawValue.replace(controlCharacters, '').trim();
    if (rawValue.length > labelLimits.valueLength) {
      skip(label, 'skipped', `longer than ${labelLimits.valueLength} characters: left out`);
      continue;
    }
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

/** DISC-9: the widget labels of homepage: reported, never mapped to a stored value; credentials named only. */
function widgetLabels(sorted: Sorted, report: (label: string, status: DiscoverStatus, detail: string) => void): void {
  const type = sorted.homepage.get('widget.type');
  const offer = type ? serviceWidgets[type.value.toLowerCase()] : undefined;
  const remedy = offer
    ? `create an integration of kind ${offer[0]} the documented way (its secret set there), then add a ${offer[1]} widget bound to it`
    : 'Tessera makes widgets from integrations, not from labels';
  for (const [key, where] of sorted.homepage) {
    if (!/^widgets?\./.test(key)) continue;
    const word = key.split('.').pop() ?? '';
    if (key === 'widget.type') report(where.label, 'unmapped', `widget "${where.value}": ${remedy}`);
    else if (credentialWord.test(word)) report(where.label, 'skipped', 'a credential: not read, not written anywhere (secrets do not come from labels; set it on the integration)');
    else report(where.label, 'unmapped', `widget option: ${remedy}`);
  }
}

/** DISC-8: a whole number from 1 to `max`, or null (reported). */
function boundedInteger(where: Where | undefined, max: number, report: (label: string, status: DiscoverStatus, detail: string) => void): number | null {
  if (!where) return null;
  if (/^\d{1,3}$/.test(where.value) && Number(where.value) >= 1 && Number(where.value) <= max) {
    report(where.label, 'mapped', `${where.value} columns or rows on the desktop layout (the phone's layout keeps it within its width)`);
    return Number(where.value);
  }
  report(where.label, 'unmapped', `not a whole number from 1 to ${max}: the layout's tile size instead`);
  return null;
}

interface Placed {
  board: string;
  group: string;
  weight: number;
  name: string;
  order: string;
  item: DraftItem;
  /** The label each app field came from, so that appItem's report entries name labels. */
  fieldLabels: Record<string, string>;
}

/**
 * DISC-6..9: one object as an app item on its board and group, or null when it is skipped (no labels of the
 * vocabularies, `glance.hide`, a `glance.parent` child).
 */
function mapObject(ctx: Context, found: Found, options: DiscoverOptions, entries: DiscoverEntry[]): Placed | null {
  const object = found.source.name;
  const report = (label: string, status: DiscoverStatus, detail: string) => entries.push({ object, label, status, detail });
  const sorted = sortLabels(found, options, report);
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
  widgetLabels(sorted, report);
  for (const [key, where] of sorted.homepage) {
    if ((homepageKeys as readonly string[]).includes(key) || /^widgets?\./.test(key)) continue;
    report(where.label, 'unmapped', homepageOther[key] ?? 'not a homepage label Tessera reads');
  }

  const pick = (...candidates: (Where | undefined)[]) => candidates.find((where) => where && where.value !== '');
  const nameFrom = pick(home('name'), useGlance ? glance('name') : undefined);
  const name = nameFrom?.value ?? found.object.name;
  const href = pick(home('href'), useGlance ? glance('url') : undefined);
  const icon = pick(home('icon'), useGlance ? glance('icon') : undefined);
  const description = pick(home('description'), useGlance ? glance('description') : undefined);
  const groupFrom = pick(tessera('section'), home('group'));
  const group = groupFrom?.value.slice(0, 200) ?? defaultGroup;
  if (!nameFrom) report('', 'mapped', `no name label: named after the ${found.kind} (${name})`);
  if (groupFrom) report(groupFrom.label, 'mapped', `section "${group}"`);
  else report('', 'mapped', `no group label: section "${defaultGroup}"`);

  // DISC-6: the board: tessera.board, else --board, else `docker`.
  const boardFrom = tessera('board');
  let board = options.board ?? defaultDiscoveredBoard;
  if (boardFrom) {
    board = boardNamePattern.test(boardFrom.value) ? boardFrom.value : boardNameOf(boardFrom.value, board);
    report(boardFrom.label, 'mapped', `board ${board}${board === boardFrom.value ? '' : ' (a board name holds letters, digits, - and _)'}`);
  }

  // DISC-11: weight, homepage's: a number, 0 when absent.
  const weightFrom = home('weight');
  let weight = 0;
  if (weightFrom) {
    if (/^-?\d+(\.\d+)?$/.test(weightFrom.value) && Number.isFinite(Number(weightFrom.value))) {
      weight = Number(weightFrom.value);
      report(weightFrom.label, 'mapped', `weight ${weight}: the order in its section (weight, then name)`);
    } else report(weightFrom.label, 'unmapped', 'not a number: weight 0');
  }

  // DISC-8: the status check: tessera.ping (true: the link; false: none; an http(s) URL), else homepage's siteMonitor.
  const pingFrom = tessera('ping');
  let pingUrl: string | null = null;
  if (pingFrom) {
    const word = pingFrom.value.toLowerCase();
    pingUrl = word === 'true' ? href?.value ?? null : word === 'false' ? null : pingFrom.value;
    if (word === 'true' && !href) report(pingFrom.label, 'unmapped', 'no link to ping');
  } else if (home('siteMonitor')) pingUrl = home('siteMonitor')!.value;
  const target = home('target');
  const sameTab = useGlance ? glance('same-tab') : undefined;
  const openInNewTab = target ? target.value === '_blank' : sameTab ? sameTab.value.toLowerCase() !== 'true' : true;

  const width = boundedInteger(tessera('width'), sizeBounds.width, report);
  const height = boundedInteger(tessera('height'), sizeBounds.height, report);
  const key = `${found.kind}:${found.object.name}`;
  const item = appItem(ctx, found.source, [], object, key, {
    name,
    href: href?.value ?? null,
    description: description?.value ?? null,
    icon: icon?.value ?? null,
    pingUrl,
    openInNewTab,
    tile: width === null && height === null,
  });
  if (width !== null || height !== null) {
    item.width = width ?? 3;
    item.height = height ?? 1;
    item.options.layout = 'row';
  }
  const fieldLabels: Record<string, string> = {};
  for (const [field, where] of [['name', nameFrom], ['href', href], ['icon', icon], ['description', description], ['status check', pingFrom ?? home('siteMonitor')]] as const) {
    if (where) fieldLabels[field] = where.label;
  }
  return { board, group, weight, name: item.app!.name, order: key, item, fieldLabels };
}

/**
 * DISC-3..12: the containers and services an engine answered as board files: one app item per discovered object, a
 * section per group (groups by name), items by weight then name, one file per board (boards by name), and the report.
 * The same answer gives the same files, byte for byte (DISC-11).
 */
export function discoverDocker(answer: DockerDiscoveryAnswer, options: DiscoverOptions = {}): DiscoverResult {
  const ctx = newContext(new SourceSet(() => null), { iconBases: options.iconBases });
  const entries: DiscoverEntry[] = [];
  const objects: Found[] = [
    ...[...answer.containers].sort((a, b) => compareName(a.name, b.name) || compareText(a.id, b.id)).map((object) => ({ kind: 'container' as const, object })),
    ...[...(answer.services ?? [])].sort((a, b) => compareName(a.name, b.name) || compareText(a.id, b.id)).map((object) => ({ kind: 'service' as const, object })),
  ].map((found) => ({ ...found, source: objectSource(found.kind, found.object) }));
  const placed: Placed[] = [];
  for (const found of objects) {
    const before = ctx.report.entries.length;
    const result = mapObject(ctx, found, options, entries);
    // appItem's own entries (links refused, icons, cuts) follow the object's, named by the app's field.
    for (const entry of ctx.report.entries.slice(before)) entries.push({ object: entry.file, label: result?.fieldLabels[entry.field] ?? entry.field, status: entry.status, detail: entry.detail });
    if (result) placed.push(result);
  }
  // DISC-6: boards by name, letter case ignored (a set's names are unique that way); the first spelling names it.
  const boardNames = new Map<string, string>();
  for (const entry of [...placed].sort((a, b) => compareName(a.board, b.board))) if (!boardNames.has(entry.board.toLowerCase())) boardNames.set(entry.board.toLowerCase(), entry.board);
  const boards: BoardFile[] = [];
  const reportBoards: DiscoverReport['boards'] = [];
  for (const [folded, board] of [...boardNames].sort(([a], [b]) => compareText(a, b))) {
    const mine = placed.filter((entry) => entry.board.toLowerCase() === folded);
    const groups = [...new Set(mine.map((entry) => entry.group))].sort(compareName);
    const sections: DraftSection[] = groups.map((group) => ({
      key: `group:${group}`,
      name: group,
      // CONV-19: groups stand side by side as homepage's column groups do.
      row: 'discovered',
      items: mine
        .filter((entry) => entry.group === group)
        .sort((a, b) => a.weight - b.weight || compareName(a.name, b.name) || compareText(a.order, b.order))
        .map((entry) => entry.item),
    }));
    const file = buildBoardFile({ name: board, sections });
    const { apiVersion, kind, name, isPublic, ...rest } = file;
    boards.push(options.managedBy ? { apiVersion, kind, name, isPublic, managedBy: options.managedBy, ...rest } : file);
    reportBoards.push({ name: board, file: `${board}.yaml`, apps: mine.length });
  }
  return {
    boards,
    report: { source: 'docker', found: { containers: answer.containers.length, services: answer.services?.length ?? null }, boards: reportBoards, entries },
  };
}
