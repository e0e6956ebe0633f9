/**
 * CAPI-2, CAPI-3: a custom API definition, and the rules a written one must keep (pure; the store checks that the
 * integration exists). The OpenAPI schema CustomApiInput bounds the shapes; these are the rules a schema cannot say.
 */
import { badRequest } from '../core/errors';
import type { SecretKind } from '../integrations/clients/types';
import { isIntegrationUrl } from '../integrations/url';
import { fieldFormats, type FieldFormat } from './format';
import { parseJsonPath } from './jsonPath';
import { canParseUrl } from '../core/url';

export interface CustomApiField {
  label: string;
  path: string;
  format: FieldFormat;
}

export interface CustomApiDefinition {
  id: string;
  name: string;
  /** With an integration, `url` is a path appended to the integration's URL and headers may name its secrets. */
  integrationId: string | null;
  url: string;
  method: 'GET' | 'POST';
  body: string | null;
  headers: { name: string; value: string }[];
  /** Fields of the answer (mode `fields`), or of each entry of the list `list.path` finds (mode `list`). */
  fields: CustomApiField[];
  list: { path: string; limit: number } | null;
  createdAt: string;
  updatedAt: string;
}

export type CustomApiInput = Omit<CustomApiDefinition, 'id' | 'createdAt' | 'updatedAt' | 'integrationId' | 'method' | 'body' | 'headers' | 'list' | 'fields'> & {
  integrationId?: string | null;
  method?: 'GET' | 'POST';
  body?: string | null;
  headers?: { name: string; value: string }[];
  fields: { label: string; path: string; format?: FieldFormat }[];
  list?: { path: string; limit?: number } | null;
};

export const defaultListLimit = 10;

/** Every SecretKind (the type in integrations/clients/types.ts), as the names a header may reference. */
export const secretKinds = [
  'username', 'password', 'apiKey', 'tokenId', 'realm', 'personalAccessToken', 'topic', 'opnsenseApiKey', 'opnsenseApiSecret', 'privateKey', 'githubAppId', 'githubInstallationId',
] as const satisfies readonly SecretKind[];
type MissingSecretKind = Exclude<SecretKind, (typeof secretKinds)[number]>;
const allSecretKinds: MissingSecretKind extends never ? true : never = true;
void allSecretKinds;

/** CAPI-3: `{{kind}}` in a header value stands for the integration's secret of that kind. */
const placeholder = /\{\{\s*([A-Za-z]+)\s*\}\}/g;

/** The secret kinds `value` references, and the `{{…}}` that name no secret kind. */
export function placeholdersOf(value: string): { kinds: SecretKind[]; unknown: string[] } {
  const kinds: SecretKind[] = [];
  const unknown: string[] = [];
  for (const match of value.matchAll(placeholder)) {
    if ((secretKinds as readonly string[]).includes(match[1]!)) kinds.push(match[1] as SecretKind);
    else unknown.push(match[0]);
  }
  if (value.replace(placeholder, '').includes('{{')) unknown.push('{{');
  return { kinds, unknown };
}

/** CAPI-3: `value` with each `{{kind}}` replaced by that secret; null when one of them is not set. */
export function fillPlaceholders(value: string, secrets: Partial<Record<SecretKind, string>>): { value: string } | { missing: SecretKind } {
  const { kinds } = placeholdersOf(value);
  const missing = kinds.find((kind) => secrets[kind] === undefined);
  if (missing) return { missing };
  return { value: value.replace(placeholder, (_all, kind: SecretKind) => secrets[kind]!) };
}

const reservedHeaders = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'keep-alive']);
const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** CAPI-2: `path` appended to the integration's URL (one slash between); null when it would leave the integration's origin. */
export function integrationRequestUrl(integrationUrl: string, path: string): string | null {
  if (scheme.test(path) || path.startsWith('//') || path.startsWith('\\')) return null;
  let base: URL;
  try {
    base = new URL(integrationUrl.trim());
  } catch {
    return null;
  }
  const joined = `${base.origin}${base.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}${path.includes('?') ? '' : base.search}`;
  if (!canParseUrl(joined)) return null;
  const url = new URL(joined);
  return url.origin === base.origin ? url.toString() : null;
}

interface Issue {
  instancePath: string;
  message: string;
}

/**
 * CAPI-2: the definition to store from a written one (trimmed, defaults filled), or a 400 `Input validation failed`
 * naming every bad field in `data.issues[].instancePath`, as the contract's own checks do.
 */
export function normalizeCustomApiInput(input: CustomApiInput): Omit<CustomApiDefinition, 'id' | 'createdAt' | 'updatedAt'> {
  const issues: Issue[] = [];
  const name = input.name.trim();
  if (name.length === 0) issues.push({ instancePath: '/requestBody/name', message: 'must be 1 to 64 characters after trimming' });
  const integrationId = input.integrationId ?? null;
  const method = input.method ?? 'GET';
  const url = input.url.trim();
  if (integrationId === null) {
    if (!isIntegrationUrl(url)) issues.push({ instancePath: '/requestBody/url', message: 'must be an absolute http:// or https:// URL (or a path, with integrationId)' });
  } else if (scheme.test(url) || url.startsWith('//') || url.startsWith('\\') || integrationRequestUrl('http://integration.invalid/', url) === null) {
    issues.push({ instancePath: '/requestBody/url', message: "with integrationId, must be a path relative to the integration's URL (no scheme, no //host)" });
  }
  const body = input.body ?? null;
  if (body !== null && method !== 'POST') issues.push({ instancePath: '/requestBody/body', message: 'is only sent with method POST' });
  const headers = (input.headers ?? []).map((header) => ({ name: header.name.trim(), value: header.value }));
  const seen = new Set<string>();
  headers.forEach((header, index) => {
    const lower = header.name.toLowerCase();
    if (reservedHeaders.has(lower)) issues.push({ instancePath: `/requestBody/headers/${index}/name`, message: `${header.name} is set by the server` });
    if (seen.has(lower)) issues.push({ instancePath: `/requestBody/headers/${index}/name`, message: `${header.name} is given twice` });
    seen.add(lower);
    const { kinds, unknown } = placeholdersOf(header.value);
    if (unknown.length > 0) issues.push({ instancePath: `/requestBody/headers/${index}/value`, message: `${unknown.join(', ')} names no secret kind (one of ${secretKinds.join(', ')})` });
    if (kinds.length > 0 && integrationId === null) issues.push({ instancePath: `/requestBody/headers/${index}/value`, message: 'references secrets, which only an integration has: set integrationId' });
  });
  const list = input.list ? { path: input.list.path, limit: input.list.limit ?? defaultListLimit } : null;
  if (list) {
    const parsed = parseJsonPath(list.path);
    if ('error' in parsed) issues.push({ instancePath: '/requestBody/list/path', message: parsed.error });
  }
  const fields = input.fields.map((field, index) => {
    const parsed = parseJsonPath(field.path);
    if ('error' in parsed) issues.push({ instancePath: `/requestBody/fields/${index}/path`, message: parsed.error });
    const label = field.label.trim();
    if (label.length === 0) issues.push({ instancePath: `/requestBody/fields/${index}/label`, message: 'must not be blank' });
    return { label, path: field.path, format: field.format ?? 'text' };
  });
  if (issues.length > 0) throw badRequest('Input validation failed', { issues });
  return { name, integrationId, url, method, body, headers, fields, list };
}

export { fieldFormats };
