/**
 * What every discovery source shares (DISC-22: DISC-2, DISC-6, DISC-8, DISC-9, DISC-11), pure: the bounds of untrusted
 * labels and annotations, the widget labels that are reported and never stored, the mapping of one discovered
 * object's fields (name, link, icon, description, group, weight, board, size, status check) to an app item, and the
 * board files built from the placed items (a section per group, items by weight then name, one file per board).
 * The sources (src/discover/docker.ts, src/discover/kubernetes.ts) sort their own vocabularies into these fields.
 */
import { boardNameOf, buildBoardFile, type BoardFile, type DraftItem, type DraftSection } from '../convert/build';
import { appItem, newContext, type Context } from '../convert/common';
import { serviceWidgets } from '../convert/homepage';
import type { IconBases } from '../convert/icons';
import type { ReportStatus } from '../convert/report';
import { controlCharacters, ConvertError, SourceSet, type SourceFile } from '../convert/source';

export interface DiscoverOptions {
  /** DISC-6: the board of the objects without `tessera.board` (default: the source's, `docker` or `kubernetes`). */
  board?: string;
  /** DISC-10: the `managedBy` label each file carries. */
  managedBy?: string;
  /** DISC-5, DISC-17: the homepage instance whose labels or annotations apply. */
  instance?: string;
  iconBases?: IconBases;
}

export type DiscoverStatus = ReportStatus | 'skipped';

export interface DiscoverEntry {
  /** `container <name>`, `service <name>`, `ingress <namespace>/<name>`, … */
  object: string;
  /** The label or annotation the entry is about ('' for the object as a whole). */
  label: string;
  status: DiscoverStatus;
  detail: string;
}

export interface DiscoverReport {
  source: 'docker' | 'kubernetes';
  /** What the source answered, per kind of object (null: a kind the source does not serve). */
  found: Record<string, number | null>;
  boards: { name: string; file: string; apps: number }[];
  entries: DiscoverEntry[];
}

export interface DiscoverResult {
  boards: BoardFile[];
  report: DiscoverReport;
}

/** DISC-8: the bounds of `tessera.width` and `tessera.height` (the desktop layout's columns). */
export const sizeBounds = { width: 12, height: 12 } as const;

/** DISC-2: bounds of what discovery keeps of labels and annotations (untrusted input). */
export const labelLimits = { labels: 256, keyLength: 256, valueLength: 4096 } as const;

const boardNamePattern = /^[A-Za-z0-9_-]{1,200}$/;

/** DISC-9: a widget label whose last word names a credential: never read further, never written. */
const credentialWord = /(key|password|passwd|pass|username|user|token|secret|auth|cookie|session|hash|credential)/i;

export type Report = (label: string, status: DiscoverStatus, detail: string) => void;

/** A label's (or annotation's) value and its name, so that report entries name where a field came from. */
export type Where = { value: string; label: string };

export const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** DISC-11: names compare letter case ignored first, then as written, so the order never depends on a locale. */
export const compareName = (a: string, b: string) => compareText(a.toLowerCase(), b.toLowerCase()) || compareText(a, b);

/**
 * DISC-2: a label or annotation map as discovery keeps it: the keys starting with one of `prefixes` only, string
 * values only, at most `labelLimits.labels` of them (by name order), keys over their bound left out, values cut one
 * character past the bound (so the mapping can say it was too long).
 */
export function boundedMap(value: unknown, prefixes: readonly string[]): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const entries = Object.entries(value as Record<string, unknown>)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0].length <= labelLimits.keyLength && prefixes.some((prefix) => entry[0].startsWith(prefix)))
    .sort(([a], [b]) => compareText(a, b))
    .slice(0, labelLimits.labels)
    .map(([key, label]) => [key, label.slice(0, labelLimits.valueLength + 1)]);
  return Object.fromEntries(entries);
}

/**
 * DISC-2: an object's labels in name order, control characters removed and values trimmed; a value over the bound is
 * reported `skipped` and left out.
 */
export function cleanLabels(labels: Record<string, string>, report: Report): Where[] {
  const kept: Where[] = [];
  for (const [rawKey, rawValue] of Object.entries(labels).sort(([a], [b]) => compareText(a, b))) {
    const label = rawKey.replace(controlCharacters, '');
    if (rawValue.length > labelLimits.valueLength) {
      report(label, 'skipped', `longer than ${labelLimits.valueLength} characters: left out`);
      continue;
    }
    kept.push({ label, value: rawValue.replace(controlCharacters, '').trim() });
  }
  return kept;
}

/**
 * DISC-9: homepage's widget labels or annotations (`widget.*`, `widgets.*`, keyed without the vocabulary's prefix):
 * reported, never mapped to a stored value; credentials named only; `what` names the kind of input ("labels").
 */
export function reportWidgets(homepage: Map<string, Where>, what: string, report: Report): void {
  const type = homepage.get('widget.type');
  const offer = type ? serviceWidgets[type.value.toLowerCase()] : undefined;
  const remedy = offer
    ? `create an integration of kind ${offer[0]} the documented way (its secret set there), then add a ${offer[1]} widget bound to it`
    : `Tessera makes widgets from integrations, not from ${what}`;
  for (const [key, where] of homepage) {
    if (!isWidgetKey(key)) continue;
    const word = key.split('.').pop() ?? '';
    if (key === 'widget.type') report(where.label, 'unmapped', `widget "${where.value}": ${remedy}`);
    else if (credentialWord.test(word)) report(where.label, 'skipped', `a credential: not read, not written anywhere (secrets do not come from ${what}; set it on the integration)`);
    else report(where.label, 'unmapped', `widget option: ${remedy}`);
  }
}

export const isWidgetKey = (key: string) => /^widgets?\./.test(key);

/** DISC-8: a whole number from 1 to `max`, or null (reported). */
function boundedInteger(where: Where | undefined, max: number, report: Report): number | null {
  if (!where) return null;
  if (/^\d{1,3}$/.test(where.value) && Number(where.value) >= 1 && Number(where.value) <= max) {
    report(where.label, 'mapped', `${where.value} columns or rows on the desktop layout (the phone's layout keeps it within its width)`);
    return Number(where.value);
  }
  report(where.label, 'unmapped', `not a whole number from 1 to ${max}: the layout's tile size instead`);
  return null;
}

/** One discovered object as its source names it. */
export interface Discovered {
  /** `container`, `service`, `Ingress`, … as the report's default-name note says it. */
  kind: string;
  /** The object's own name: the app's name when no label names it. */
  name: string;
  /** DISC-11: the key the item's id derives from (`container:<name>`, `ingress:<namespace>/<name>`). */
  key: string;
  source: SourceFile;
}

/** The place an object's report entries name (`container web`, `ingress media/emby`). */
export function objectSource(name: string, labels: Record<string, string>): SourceFile {
  return { name, data: labels, fail: (_at, reason) => new ConvertError(name, null, null, reason), where: (at) => at.join('.'), cleaned: [] };
}

/** The fields of one object, each with the label it came from (already chosen among the source's vocabularies). */
export interface ServiceFields {
  name?: Where;
  href?: Where;
  icon?: Where;
  description?: Where;
  /** homepage's group (`tessera.section` wins over it). */
  group?: Where;
  weight?: Where;
  /** homepage's siteMonitor: the status check's URL unless `tessera.ping` says otherwise. */
  siteMonitor?: Where;
  openInNewTab: boolean;
  tessera: { board?: Where; section?: Where; width?: Where; height?: Where; ping?: Where };
}

/** The source's defaults and words. */
export interface SourceDefaults {
  board: string;
  group: string;
  /** How the report says where a field comes from: `label` (Docker) or `annotation` (Kubernetes). */
  word: string;
}

export interface Placed {
  board: string;
  group: string;
  weight: number;
  name: string;
  order: string;
  item: DraftItem;
  /** The label each app field came from, so that appItem's report entries name labels. */
  fieldLabels: Record<string, string>;
}

/** DISC-6, DISC-8, DISC-11: one object's fields as an app item on its board and section, with its weight. */
export function placeService(ctx: Context, found: Discovered, fields: ServiceFields, options: DiscoverOptions, defaults: SourceDefaults, report: Report): Placed {
  const { tessera, href } = fields;
  const name = fields.name?.value ?? found.name;
  const groupFrom = tessera.section ?? fields.group;
  const group = groupFrom?.value.slice(0, 200) ?? defaults.group;
  if (!fields.name) report('', 'mapped', `no name ${defaults.word}: named after the ${found.kind} (${name})`);
  if (groupFrom) report(groupFrom.label, 'mapped', `section "${group}"`);
  else report('', 'mapped', `no group ${defaults.word}: section "${defaults.group}"`);

  // DISC-6: the board: tessera.board, else --board, else the source's.
  let board = options.board ?? defaults.board;
  if (tessera.board) {
    board = boardNamePattern.test(tessera.board.value) ? tessera.board.value : boardNameOf(tessera.board.value, board);
    report(tessera.board.label, 'mapped', `board ${board}${board === tessera.board.value ? '' : ' (a board name holds letters, digits, - and _)'}`);
  }

  // DISC-11: weight, homepage's: a number, 0 when absent.
  let weight = 0;
  if (fields.weight) {
    if (/^-?\d+(\.\d+)?$/.test(fields.weight.value) && Number.isFinite(Number(fields.weight.value))) {
      weight = Number(fields.weight.value);
      report(fields.weight.label, 'mapped', `weight ${weight}: the order in its section (weight, then name)`);
    } else report(fields.weight.label, 'unmapped', 'not a number: weight 0');
  }

  // DISC-8: the status check: tessera.ping (true: the link; false: none; an http(s) URL), else homepage's siteMonitor.
  let pingUrl: string | null = null;
  if (tessera.ping) {
    const word = tessera.ping.value.toLowerCase();
    pingUrl = word === 'true' ? href?.value ?? null : word === 'false' ? null : tessera.ping.value;
    if (word === 'true' && !href) report(tessera.ping.label, 'unmapped', 'no link to ping');
  } else if (fields.siteMonitor) pingUrl = fields.siteMonitor.value;

  const width = boundedInteger(tessera.width, sizeBounds.width, report);
  const height = boundedInteger(tessera.height, sizeBounds.height, report);
  const item = appItem(ctx, found.source, [], found.source.name, found.key, {
    name,
    href: href?.value ?? null,
    description: fields.description?.value ?? null,
    icon: fields.icon?.value ?? null,
    pingUrl,
    openInNewTab: fields.openInNewTab,
    tile: width === null && height === null,
  });
  if (width !== null || height !== null) {
    item.width = width ?? 3;
    item.height = height ?? 1;
    item.options.layout = 'row';
  }
  const fieldLabels: Record<string, string> = {};
  for (const [field, where] of [['name', fields.name], ['href', href], ['icon', fields.icon], ['description', fields.description], ['status check', tessera.ping ?? fields.siteMonitor]] as const) {
    if (where) fieldLabels[field] = where.label;
  }
  return { board, group, weight, name: item.app!.name, order: found.key, item, fieldLabels };
}

/**
 * DISC-3, DISC-6, DISC-11: the objects (already in their reading order) mapped by `map` (null: skipped), each one's
 * entries followed by appItem's, then the board files: a section per group (groups by name), items by weight then
 * name, one file per board (boards by name, letter case ignored; the first spelling names it).
 */
export function discoverServices<T extends { found: Discovered }>(
  objects: readonly T[],
  options: DiscoverOptions,
  map: (ctx: Context, object: T, report: Report) => Placed | null,
): { boards: BoardFile[]; reportBoards: DiscoverReport['boards']; entries: DiscoverEntry[] } {
  const ctx = newContext(new SourceSet(() => null), { iconBases: options.iconBases });
  const entries: DiscoverEntry[] = [];
  const placed: Placed[] = [];
  for (const object of objects) {
    const before = ctx.report.entries.length;
    const name = object.found.source.name;
    const result = map(ctx, object, (label, status, detail) => entries.push({ object: name, label, status, detail }));
    // appItem's own entries (links refused, icons, cuts) follow the object's, named by the app's field.
    for (const entry of ctx.report.entries.slice(before)) entries.push({ object: entry.file, label: result?.fieldLabels[entry.field] ?? entry.field, status: entry.status, detail: entry.detail });
    if (result) placed.push(result);
  }
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
  return { boards, reportBoards, entries };
}
