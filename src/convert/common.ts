/** What every converter shares: the conversion's inputs and outputs, app items, widget items, text bounds. */
import { appUrlProblem } from '../apps/urls';
import { widgetDefaultSize } from '../widgets/registry';
import type { BoardFile, DraftItem } from './build';
import { defaultIconBases, mapIcon, type IconBases } from './icons';
import { redactedFields, redactSecrets, Reporter, type ConvertReport } from './report';
import { ConvertError, type FileReader, type PathKey, type SourceFile, type SourceSet } from './source';

export interface ConvertOptions {
  iconBases?: IconBases;
  /** CONV-13: the name of the (main) board; the others are named `<name>-<their own>`. */
  name?: string;
  /** CONV-17: every board of the conversion is public (`--public`). */
  public?: boolean;
}

/** The input of a converter: the files the user named (relative to the input directory) and a reader for them. */
export interface ConvertInput {
  files: string[];
  read: FileReader;
}

export interface ConvertResult {
  boards: BoardFile[];
  report: ConvertReport;
}

/** The main configuration file among the input files: the one named `name` (.yml or .yaml), or the only YAML file. */
export function entryFile(input: ConvertInput, format: string, name: string): string {
  const yamlFiles = input.files.filter((file) => /\.ya?ml$/i.test(file));
  const entry = yamlFiles.find((file) => new RegExp(`(^|/)${name}\\.ya?ml$`, 'i').test(file)) ?? (yamlFiles.length === 1 ? yamlFiles[0] : null);
  if (!entry) throw new ConvertError(input.files.join(', ') || '(no files)', null, null, `${format}: no ${name}.yml among the input files`);
  return entry;
}

/** What a converter works with while it runs. */
export interface Context {
  sources: SourceSet;
  report: Reporter;
  iconBases: IconBases;
}

export function newContext(sources: SourceSet, options: ConvertOptions): Context {
  const report = new Reporter();
  // CONV-10: control characters are removed as each file is read, and each place said.
  sources.onLoad = (file) => {
    for (const at of file.cleaned) {
      // The place as written, its control characters shown escaped (never sent to a terminal as they are).
      const object = at.map((key) => String(key).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)).join(' / ');
      report.add(file, at, at.length === 0 ? file.name : object, '', 'mapped', 'control characters (NUL and others) removed: Tessera refuses them in text');
    }
  };
  return { sources, report, iconBases: options.iconBases ?? defaultIconBases };
}

export const asString = (value: unknown): string | null => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null);

const codePoints = (value: string) => [...value];

/** `value` cut to `max` characters, reporting the cut. */
export function bounded(ctx: Context, source: SourceFile, at: readonly PathKey[], object: string, field: string, value: string, max: number): string {
  const chars = codePoints(value.trim());
  if (chars.length <= max) return chars.join('');
  ctx.report.add(source, at, object, field, 'mapped', `cut to ${max} characters (Tessera's bound)`);
  return chars.slice(0, max).join('');
}

export interface AppSource {
  name: string;
  href?: string | null;
  description?: string | null;
  icon?: string | null;
  pingUrl?: string | null;
  openInNewTab?: boolean;
  /** CONV-11: how the source shows the description: under the name (the default) or on hover. */
  descriptionShown?: 'normal' | 'tooltip';
  /**
   * CONV-14: a tile sized by the layout (tileSize), its icon beside its name and description (the app widget's `row`
   * layout), as homepage, Dashy and Glance draw their links; without it a 1x1 cell (old Homarr sets its own sizes).
   */
  tile?: boolean;
}

/**
 * An `app` item for a service, bookmark or link: the app by its fields (deduplicated on import by name and href,
 * APP-1), the icon mapped (CONV-4), placeholders reported (CONV-3).
 */
export function appItem(ctx: Context, source: SourceFile, at: readonly PathKey[], object: string, key: string, app: AppSource): DraftItem {
  const name = bounded(ctx, source, at, object, 'name', app.name, 64);
  let href = app.href?.trim() || null;
  const hrefProblem = href && appUrlProblem('href', href);
  if (hrefProblem) {
    ctx.report.add(source, at, object, 'href', 'unmapped', `${href}: Tessera refuses it, an app link ${hrefProblem} (APP-6): left out`);
    href = null;
  }
  if (href) ctx.report.placeholders(source, at, object, 'href', href);
  const description = app.description ? bounded(ctx, source, at, object, 'description', app.description, 512) : null;
  if (description) ctx.report.placeholders(source, at, object, 'description', description);
  let icon = mapIcon(app.icon, href, ctx.iconBases);
  if (icon.unsupported) ctx.report.add(source, at, object, 'icon', 'unmapped', `${app.icon}: ${icon.unsupported}: left out, ${icon.how === 'favicon' ? 'the favicon of the link' : 'a generic icon'} instead`);
  if (icon.dropped) ctx.report.add(source, at, object, 'icon', 'unmapped', icon.dropped);
  const iconProblem = appUrlProblem('iconUrl', icon.url);
  if (iconProblem) {
    // Kept as written it would make the file fail on import: the favicon of the link or the generic icon instead.
    ctx.report.add(source, at, object, 'icon', 'unmapped', `${app.icon}: Tessera refuses it, an icon URL ${iconProblem} (APP-6): left out`);
    icon = mapIcon(null, href, ctx.iconBases);
  }
  if (icon.unsupported) {
    // reported above
  } else if (icon.how === 'placeholder') ctx.report.add(source, at, object, 'icon', 'placeholder', `${icon.note}: ${icon.url}`);
  else ctx.report.add(source, at, object, 'icon', 'mapped', `${icon.how}${icon.note ? ` (${icon.note})` : ''}: ${icon.url.startsWith('data:') ? 'an inline image' : icon.url}`);
  let pingUrl: string | null = null;
  if (app.pingUrl?.trim()) {
    if (!appUrlProblem('pingUrl', app.pingUrl.trim())) pingUrl = app.pingUrl.trim();
    else ctx.report.add(source, at, object, 'status check', 'unmapped', `${app.pingUrl}: Tessera pings http(s) addresses only`);
  }
  ctx.report.add(source, at, object, '', 'mapped', `app "${name}"${href ? ` -> ${href}` : ''}`);
  // CONV-11: the page hides descriptions unless the item says otherwise; the source showed them.
  const descriptionDisplayMode = description ? app.descriptionShown ?? 'normal' : null;
  if (descriptionDisplayMode) ctx.report.add(source, at, object, 'description', 'mapped', `shown ${descriptionDisplayMode === 'normal' ? 'under the name' : 'on hover'} (descriptionDisplayMode: ${descriptionDisplayMode})`);
  return {
    key,
    kind: 'app',
    options: {
      openInNewTab: app.openInNewTab ?? true,
      showTitle: true,
      pingEnabled: pingUrl !== null,
      ...(descriptionDisplayMode ? { descriptionDisplayMode } : {}),
      ...(app.tile ? { layout: 'row' } : {}),
    },
    app: { name, iconUrl: icon.url, ...(description ? { description } : {}), ...(href ? { href } : {}), ...(pingUrl ? { pingUrl } : {}) },
    width: 1,
    height: 1,
    ...(app.tile ? { tile: true } : {}),
  };
}

/** A widget item of a Tessera kind, sized by the kind's default unless told. */
export function widgetItem(key: string, kind: string, options: Record<string, unknown>, size?: { width: number; height: number }): DraftItem {
  const { width, height } = size ?? widgetDefaultSize(kind);
  return { key, kind, options, width, height };
}

/** Reports a widget Tessera has no kind for: kept in the report with its options (literal secrets redacted). */
export function keepWidget(ctx: Context, source: SourceFile, at: readonly PathKey[], object: string, type: string, options: unknown, why: string): void {
  ctx.report.placeholders(source, at, object, 'options', options);
  const kept = redactSecrets(options);
  for (const field of redactedFields(kept)) ctx.report.add(source, at, object, field, 'unmapped', 'a literal secret: not copied anywhere (write a placeholder, then set it on the integration)');
  ctx.report.add(source, at, object, '', 'kept', `widget "${type}": ${why}`, kept);
}

/** Reports each field of `record` that is not in `handled`, with the reason `why` gives (or a generic one). */
export function reportOtherFields(
  ctx: Context,
  source: SourceFile,
  at: readonly PathKey[],
  object: string,
  record: Record<string, unknown>,
  handled: readonly string[],
  why: (field: string) => string | null = () => null,
  /** Put before each field's name in the report (`behaviour.` for the fields of a sub-map). */
  prefix = '',
): void {
  for (const field of Object.keys(record)) {
    if (handled.includes(field)) continue;
    ctx.report.placeholders(source, [...at, field], object, `${prefix}${field}`, record[field]);
    ctx.report.add(source, [...at, field], object, `${prefix}${field}`, 'unmapped', why(field) ?? 'no Tessera equivalent');
  }
}
