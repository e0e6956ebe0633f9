import { badRequest } from '../core/errors';
import { appUrlProblem, type AppUrlField } from './urls';

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

function optionalText(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/**
 * The rules of APP-4 the schema cannot express (trimming, "" -> null, the trimmed lengths) and the address rule of
 * APP-6. Returns only the fields given (PATCH) with their stored values; 400 `Input validation failed` with
 * `data.issues` (each naming its field under `at`) otherwise.
 */
export function normalizeAppInput(input: AppInput, at = '/body'): Partial<AppFields> {
  const issues: Issue[] = [];
  const out: Partial<AppFields> = {};
  const checkUrl = (field: AppUrlField, value: string | null) => {
    const problem = value === null ? null : appUrlProblem(field, value);
    if (problem) issues.push({ instancePath: `${at}/${field}`, message: problem });
  };
  if (input.name !== undefined) {
    out.name = input.name.trim();
    if (codePoints(out.name) < 1 || codePoints(out.name) > 64) issues.push({ instancePath: `${at}/name`, message: 'must be 1 to 64 characters after trimming' });
  }
  if (input.description !== undefined) {
    out.description = optionalText(input.description) ?? null;
    if (out.description !== null && codePoints(out.description) > 512) {
      issues.push({ instancePath: `${at}/description`, message: 'must be at most 512 characters' });
    }
  }
  if (input.iconUrl !== undefined) {
    out.iconUrl = input.iconUrl.trim();
    if (out.iconUrl === '') issues.push({ instancePath: `${at}/iconUrl`, message: 'must not be empty' });
    else checkUrl('iconUrl', out.iconUrl);
  }
  if (input.href !== undefined) {
    out.href = optionalText(input.href) ?? null;
    checkUrl('href', out.href);
  }
  if (input.pingUrl !== undefined) {
    out.pingUrl = optionalText(input.pingUrl) ?? null;
    checkUrl('pingUrl', out.pingUrl);
  }
  if (issues.length > 0) throw badRequest('Input validation failed', { issues });
  return out;
}

/** A create body with its defaults: description, href and pingUrl default to null. */
export function normalizeNewApp(input: AppInput & { name: string; iconUrl: string }, at = '/body'): AppFields {
  const fields = normalizeAppInput(input, at);
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
