import { badRequest } from '../core/errors';

/** App fields as stored. */
export interface AppFields {
  name: string;
  description: string | null;
  iconUrl: string;
  href: string | null;
  pingUrl: string | null;
}

export interface AppInput {
  name?: string;
  description?: string | null;
  iconUrl?: string;
  href?: string | null;
  pingUrl?: string | null;
}

interface Issue {
  instancePath: string;
  message: string;
}

const codePoints = (value: string) => [...value].length;

/**
 * True when a browser would run the address as script: `javascript:` in any letter case, also after leading
 * whitespace or C0 control characters and with tabs or newlines anywhere inside (URL parsers drop both).
 */
export function isJavascriptUrl(value: string): boolean {
  // eslint-disable-next-line no-control-regex
  const normalized = value.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
  return /^javascript:/i.test(normalized);
}

export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function optionalText(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/**
 * The rules of APP-4 the schema cannot express: trimming, "" -> null, the trimmed lengths, no
 * `javascript:` href, an http(s) pingUrl. Returns only the fields given (PATCH) with their stored values; 400
 * `Input validation failed` with `data.issues` otherwise.
 */
export function normalizeAppInput(input: AppInput): Partial<AppFields> {
  const issues: Issue[] = [];
  const out: Partial<AppFields> = {};
  if (input.name !== undefined) {
    out.name = input.name.trim();
    if (codePoints(out.name) < 1 || codePoints(out.name) > 64) issues.push({ instancePath: '/body/name', message: 'must be 1 to 64 characters after trimming' });
  }
  if (input.description !== undefined) {
    out.description = optionalText(input.description) ?? null;
    if (out.description !== null && codePoints(out.description) > 512) {
      issues.push({ instancePath: '/body/description', message: 'must be at most 512 characters' });
    }
  }
  if (input.iconUrl !== undefined) {
    out.iconUrl = input.iconUrl.trim();
    if (out.iconUrl === '') issues.push({ instancePath: '/body/iconUrl', message: 'must not be empty' });
  }
  if (input.href !== undefined) {
    out.href = optionalText(input.href) ?? null;
    if (out.href !== null && isJavascriptUrl(out.href)) issues.push({ instancePath: '/body/href', message: 'must not be a javascript: URL' });
  }
  if (input.pingUrl !== undefined) {
    out.pingUrl = optionalText(input.pingUrl) ?? null;
    if (out.pingUrl !== null && !isHttpUrl(out.pingUrl)) issues.push({ instancePath: '/body/pingUrl', message: 'must be an http:// or https:// URL' });
  }
  if (issues.length > 0) throw badRequest('Input validation failed', { issues });
  return out;
}

/** A create body with its defaults: description, href and pingUrl default to null. */
export function normalizeNewApp(input: AppInput & { name: string; iconUrl: string }): AppFields {
  const fields = normalizeAppInput(input);
  return {
    name: fields.name!,
    iconUrl: fields.iconUrl!,
    description: fields.description ?? null,
    href: fields.href ?? null,
    pingUrl: fields.pingUrl ?? null,
  };
}

/**
 * APP-5: the fields of a create request that a reference to an existing app did not apply: those sent (besides the
 * dedupe key, name and href) whose stored value differs from what the request asked for, in request order.
 */
export function fieldsNotApplied(sent: AppInput, requested: AppFields, existing: AppFields): ('description' | 'iconUrl' | 'pingUrl')[] {
  const candidates = ['description', 'iconUrl', 'pingUrl'] as const;
  return candidates.filter((field) => sent[field] !== undefined && requested[field] !== existing[field]);
}
