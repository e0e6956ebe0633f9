/**
 * What a conversion did with each object of the source (CONV-3): mapped, kept as-is (unknown widget kinds with
 * their options), unmapped (with the reason) or a placeholder (secrets, environment references, icons that could
 * not be resolved). Nothing of the source is dropped without an entry here.
 */
import type { PathKey, SourceFile } from './source';

export type ReportStatus = 'mapped' | 'kept' | 'unmapped' | 'placeholder';

export interface ReportEntry {
  /** The source file and `line:column` of the object. */
  file: string;
  at: string;
  /** The object, as a path of names (`Media / Emby`). */
  object: string;
  /** The field of the object ('' for the object as a whole). */
  field: string;
  status: ReportStatus;
  detail: string;
  /** What was kept (options of an unknown widget kind), with literal secrets redacted. */
  value?: unknown;
}

export interface ConvertReport {
  format: string;
  files: string[];
  boards: { name: string; file: string }[];
  entries: ReportEntry[];
}

/** Collects the entries of one conversion. */
export class Reporter {
  readonly entries: ReportEntry[] = [];

  add(source: SourceFile, at: readonly PathKey[], object: string, field: string, status: ReportStatus, detail: string, value?: unknown): void {
    this.entries.push({ file: source.name, at: source.where(at), object, field, status, detail, ...(value === undefined ? {} : { value }) });
  }

  /**
   * Reports each field of `record` that `details` names (and `record` has) as mapped, at the field's own place:
   * what the field became in Tessera.
   */
  mappedFields(source: SourceFile, at: readonly PathKey[], object: string, record: Record<string, unknown>, details: Record<string, string>, prefix = ''): void {
    for (const [field, detail] of Object.entries(details)) {
      if (record[field] !== undefined) this.add(source, [...at, field], object, `${prefix}${field}`, 'mapped', detail);
    }
  }

  /** Reports every secret or environment placeholder inside `value` (kept as written, never resolved). */
  placeholders(source: SourceFile, at: readonly PathKey[], object: string, field: string, value: unknown): void {
    for (const found of placeholdersIn(value)) {
      this.add(source, at, object, field, 'placeholder', `${found.text}: kept as written, never resolved (${found.kind})`);
    }
  }
}

const placeholderPattern = /\{\{\s*HOMEPAGE_(VAR|FILE)_[A-Za-z0-9_]+\s*\}\}|\$\{\s*(secret:|readFileFromEnv:)?[A-Za-z0-9_.-]+\s*\}/g;

/** The secret and environment placeholders written in a value (homepage `{{HOMEPAGE_VAR_X}}`, `${ENV}`, `${secret:x}`). */
export function placeholdersIn(value: unknown): { text: string; kind: string }[] {
  const found: { text: string; kind: string }[] = [];
  const visit = (node: unknown) => {
    if (typeof node === 'string') {
      for (const match of node.matchAll(placeholderPattern)) {
        const text = match[0];
        const kind = text.startsWith('{{')
          ? text.includes('HOMEPAGE_FILE_') ? 'homepage file secret' : 'homepage variable'
          : text.includes('secret:') ? 'secret' : text.includes('readFileFromEnv:') ? 'file named by an environment variable' : 'environment variable';
        found.push({ text, kind });
      }
    } else if (Array.isArray(node)) node.forEach(visit);
    else if (typeof node === 'object' && node !== null) Object.values(node).forEach(visit);
  };
  visit(value);
  return found;
}

const secretKey = /^(key|apikey|api_key|api-key|token|accesstoken|access_token|password|pass|secret|clientsecret|client_secret|auth|authorization|cookie|hash)$/i;

/** A copy of `value` with literal secrets (values of secret-named fields that are not placeholders) redacted. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => {
      if (secretKey.test(key) && (typeof entry !== 'string' || placeholdersIn(entry).length === 0)) return [key, '<redacted>'];
      return [key, redactSecrets(entry)];
    }),
  );
}

/** Paths (`a.b`) of the values `redactSecrets` replaced. */
export function redactedFields(value: unknown, prefix = ''): string[] {
  if (value === '<redacted>') return [prefix];
  if (Array.isArray(value)) return value.flatMap((entry, index) => redactedFields(entry, `${prefix}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, entry]) => redactedFields(entry, prefix ? `${prefix}.${key}` : key));
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
