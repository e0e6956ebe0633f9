/**
 * A schemathesis-style fuzzer driven only by the OpenAPI document. For every operation it sends generated valid
 * requests and generated invalid ones (schema-aware mutations), reusing ids it harvested from earlier responses,
 * and applies these checks to every response:
 *
 *   not_a_server_error         no 5xx
 *   status_code_conformance    the status is declared for the operation
 *   content_type_conformance   a body comes with a declared media type; no body where none is declared
 *   response_schema_conformance the JSON body validates against the declared schema (Ajv2020 + formats)
 *   negative_data_rejection    a request that breaks the schema gets a 4xx
 *   ignored_auth               an operation that requires credentials answers 401 without them
 *
 * Safety on live data: ids that existed before the run (everything the parameterless GET operations list at the
 * start, e.g. the caller itself and its key) are never used as path parameters of a write; writes only touch rows
 * the fuzzer created.
 */
import fc from 'fast-check';
import { arbitraryFor, KnownId, knownId, mutationsFor } from './arbitraries';
import { createAjv, declaredResponse, listOperations, Operation, Parameter, Schema, SchemaValidators } from './openapi';

export interface FuzzOptions {
  baseUrl: string;
  document: any;
  apiKey?: string;
  /** Valid requests per operation; invalid ones are half that. */
  runs: number;
  seed: number;
  /** Only operations whose operationId is listed (default: all). */
  only?: string[];
  /** Called with one line per finished operation. */
  log?: (line: string) => void;
  /** Per-request timeout. */
  timeoutMs?: number;
  /** fetch implementation (the contract run passes one that also checks Prism's verdict). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

export interface Failure {
  check: string;
  operationId: string;
  request: string;
  status: number | null;
  detail: string;
}

export interface FuzzReport {
  requests: number;
  durationMs: number;
  operations: { operationId: string; method: string; path: string; requests: number; statuses: Record<string, number> }[];
  failures: Failure[];
}

export interface Request {
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body: unknown;
  hasBody: boolean;
  anonymous?: boolean;
}

const familyName = (raw: string) =>
  raw
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .replace(/ies$/, 'y')
    .replace(/(?<!s)s$/, '');

/** `userId` -> user, `integrationIds` -> integration, anything else -> null. */
export function idFamilyOfProperty(name: string): string | null {
  const match = /^(.+?)Ids?$/.exec(name);
  return match ? familyName(match[1]) : null;
}

/** The family of a path parameter: `{userId}` -> user; a bare `{id}` takes the static segment before it (`/boards/{id}` -> board). */
export function idFamilyOfPathParameter(path: string, name: string): string {
  const own = idFamilyOfProperty(name);
  if (own) return own;
  const segments = path.split('/');
  const index = segments.indexOf(`{${name}}`);
  for (let i = index - 1; i >= 0; i -= 1) if (segments[i] && !segments[i].startsWith('{')) return familyName(segments[i]);
  return familyName(name);
}

/** The family of the resource a path designates: `/api/users` and `/api/users/{userId}` -> user. */
function resourceFamily(path: string): string | null {
  const segments = path.split('/').filter(Boolean);
  const last = segments[segments.length - 1];
  if (!last) return null;
  if (last.startsWith('{')) return idFamilyOfPathParameter(path, last.slice(1, -1));
  return familyName(last);
}

export class IdPool {
  private readonly ids = new Map<string, string[]>();
  /** Ids that existed before the run: never written to. */
  readonly protectedIds = new Set<string>();

  add(family: string, id: string): void {
    const list = this.ids.get(family) ?? [];
    if (!list.includes(id)) list.push(id);
    this.ids.set(family, list);
  }

  remove(id: string): void {
    for (const list of this.ids.values()) {
      const i = list.indexOf(id);
      if (i >= 0) list.splice(i, 1);
    }
  }

  candidates(family: string, forWrite: boolean): string[] {
    let list = this.ids.get(family);
    if (!list || list.length === 0) {
      // `keyId` finds the `apikey` family: a family whose name ends with the wanted one.
      for (const [name, ids] of this.ids) if (ids.length > 0 && (name.endsWith(family) || family.endsWith(name))) list = ids;
    }
    return (list ?? []).filter((id) => !forWrite || !this.protectedIds.has(id));
  }

  resolve(value: unknown, forWrite: boolean): unknown {
    if (value instanceof KnownId) {
      const list = this.candidates(value.family, forWrite);
      return list.length > 0 ? list[value.pick % list.length] : value.fallback;
    }
    if (Array.isArray(value)) return value.map((v) => this.resolve(v, forWrite));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v, forWrite)]));
    }
    return value;
  }

  /** Records `id` / `<thing>Id` / `<thing>Ids` fields anywhere in a response body. */
  harvest(value: unknown, family: string | null): void {
    if (Array.isArray(value)) {
      for (const item of value) this.harvest(item, family);
      return;
    }
    if (!value || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value)) {
      if (key === 'id' && typeof v === 'string' && family) this.add(family, v);
      const idFamily = idFamilyOfProperty(key);
      if (idFamily && typeof v === 'string') {
        this.add(idFamily, v);
      } else if (idFamily && Array.isArray(v)) {
        for (const id of v) if (typeof id === 'string') this.add(idFamily, id);
      } else if (v && typeof v === 'object') {
        this.harvest(v, familyName(key));
      }
    }
  }
}

const methodRank: Record<string, number> = { post: 0, put: 1, patch: 1, get: 2, delete: 3 };

/** Id families an operation refers to: its path parameters and `<thing>Id(s)` properties of its body. */
function consumedFamilies(op: Operation): Set<string> {
  const out = new Set<string>();
  for (const p of op.parameters) if (p.in === 'path') out.add(idFamilyOfPathParameter(op.path, p.name));
  const walk = (schema: Schema | undefined, depth: number) => {
    if (!schema || typeof schema !== 'object' || depth > 4) return;
    for (const [name, child] of Object.entries<Schema>(schema.properties ?? {})) {
      const family = idFamilyOfProperty(name);
      if (family) out.add(family);
      walk(child, depth + 1);
    }
    walk(schema.items, depth + 1);
    for (const part of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) walk(part, depth + 1);
  };
  walk(op.body?.schema, 0);
  return out;
}

/**
 * Creations first, each after the creations of the ids it refers to (e.g. POST /api/api-keys, whose body has a
 * `userId`, after POST /api/users); then updates, reads, and deletions last (deepest path first).
 */
export function orderOperations(operations: Operation[]): Operation[] {
  const depth = (op: Operation) => op.parameters.filter((p) => p.in === 'path').length;
  const sorted = [...operations].sort(
    (a, b) =>
      methodRank[a.method] - methodRank[b.method] ||
      (a.method === 'delete' ? depth(b) - depth(a) : depth(a) - depth(b)) ||
      a.path.localeCompare(b.path),
  );
  const creations = sorted.filter((op) => op.method === 'post');
  const ordered: Operation[] = [];
  const pending = [...creations];
  while (pending.length > 0) {
    const producedLater = new Set(pending.map((op) => resourceFamily(op.path)).filter((f): f is string => !!f));
    const unsatisfied = (op: Operation) =>
      [...consumedFamilies(op)].filter((f) => f !== resourceFamily(op.path) && producedLater.has(f)).length;
    let best = 0;
    for (let i = 1; i < pending.length; i += 1) if (unsatisfied(pending[i]) < unsatisfied(pending[best])) best = i;
    ordered.push(...pending.splice(best, 1));
  }
  return [...ordered, ...sorted.filter((op) => op.method !== 'post')];
}

function headerSafe(schema: Schema): Schema {
  return { ...schema, pattern: schema.pattern ?? '^[\\x21-\\x7e]{0,40}$' };
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const operations = orderOperations(listOperations(options.document)).filter((op) => !options.only || options.only.includes(op.operationId));
  const validators = createValidators();
  const bodyValidators = validators.body;
  const pool = new IdPool();
  const failures: Failure[] = [];
  const seenFailures = new Set<string>();
  let requests = 0;
  const report: FuzzReport['operations'] = [];

  const send = async (request: Request): Promise<{ status: number; contentType: string | null; text: string }> => {
    requests += 1;
    const url = new URL(baseUrl + request.path);
    for (const [k, v] of request.query) url.searchParams.append(k, v);
    const headers: Record<string, string> = { ...request.headers };
    if (options.apiKey && !request.anonymous) headers.ApiKey = options.apiKey;
    if (request.hasBody) headers['Content-Type'] = 'application/json';
    const response = await (options.fetch ?? fetch)(url.href, {
      method: request.method.toUpperCase(),
      headers,
      body: request.hasBody ? JSON.stringify(request.body) : undefined,
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
  };

  const describe = (r: Request) => {
    const query = r.query.length ? `?${new URLSearchParams(r.query).toString()}` : '';
    const body = r.hasBody ? ` ${JSON.stringify(r.body)}` : '';
    return `${r.method.toUpperCase()} ${r.path}${query}${body}${r.anonymous ? ' (no credentials)' : ''}`;
  };

  // Pre-existing ids (the caller, its key, ...) are protected from writes.
  for (const op of operations.filter((o) => o.method === 'get' && o.parameters.every((p) => !p.required))) {
    try {
      const res = await send({ method: 'get', path: op.path, query: [], headers: {}, body: undefined, hasBody: false });
      if (res.status === 200 && res.contentType?.includes('json')) {
        const before = new Set(allIds(JSON.parse(res.text)));
        for (const id of before) pool.protectedIds.add(id);
        pool.harvest(JSON.parse(res.text), resourceFamily(op.path));
      }
    } catch {
      // reported by the operation's own run
    }
  }

  for (const [index, op] of operations.entries()) {
    const statuses: Record<string, number> = {};
    const before = requests;
    const isWrite = op.method !== 'get';

    const check = (request: Request, res: { status: number; contentType: string | null; text: string }, invalid: string | null): string[] => {
      const problems: string[] = [];
      const failed = (name: string, detail: string) => problems.push(`${name}: ${detail}`);
      if (res.status >= 500) failed('not_a_server_error', `${res.status} ${res.text.slice(0, 300)}`);
      const declared = declaredResponse(op, res.status);
      if (!declared) failed('status_code_conformance', `undeclared status ${res.status} (declared: ${Object.keys(op.responses).join(', ')})`);
      if (invalid && res.status < 400) failed('negative_data_rejection', `invalid input (${invalid}) answered ${res.status}`);
      if (request.anonymous && res.status !== 401) failed('ignored_auth', `no credentials answered ${res.status}`);
      if (declared) {
        const content = declared.content ?? {};
        const mediaType = res.contentType?.split(';')[0].trim().toLowerCase() ?? null;
        if (res.text.length > 0) {
          const entry = mediaType ? content[mediaType] : undefined;
          if (!entry) failed('content_type_conformance', `${res.status} with ${mediaType ?? 'no content type'}, declared: ${Object.keys(content).join(', ') || 'no body'}`);
          else if (entry.schema && mediaType && /[/+]json$/.test(mediaType)) {
            let parsed: unknown;
            try {
              parsed = JSON.parse(res.text);
            } catch {
              failed('response_schema_conformance', `${res.status} body is not JSON`);
            }
            if (parsed !== undefined && !bodyValidators.valid(entry.schema, parsed)) {
              failed('response_schema_conformance', `${res.status}: ${bodyValidators.errors(entry.schema, parsed).slice(0, 400)}`);
            }
          }
        } else if (Object.keys(content).length > 0 && res.status !== 204) {
          failed('content_type_conformance', `${res.status} with an empty body, declared: ${Object.keys(content).join(', ')}`);
        }
      }
      return problems;
    };

    const execute = async (request: Request, invalid: string | null) => {
      const res = await send(request);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status >= 200 && res.status < 300 && res.contentType?.includes('json') && res.text) {
        try {
          pool.harvest(JSON.parse(res.text), resourceFamily(op.path));
        } catch {
          /* checked below */
        }
      }
      if (op.method === 'delete' && res.status >= 200 && res.status < 300) {
        const last = op.parameters.filter((p) => p.in === 'path').pop();
        if (last) pool.remove(decodeURIComponent(request.path.split('/').pop() ?? ''));
      }
      return check(request, res, invalid);
    };

    const property = (negative: boolean) =>
      fc.asyncProperty(requestArbitrary(op), fc.nat(), async (raw, mutationPick) => {
        const resolved = resolveRequest(raw, isWrite);
        let params = resolved.params;
        let body = resolved.body;
        let hasBody = resolved.hasBody;
        let mutation: string | null = null;
        if (negative) {
          const candidates = [
            ...op.parameters.flatMap((p) =>
              params[paramKey(p)] === undefined || p.json
                ? []
                : mutationsFor(p.in === 'header' ? headerSafe(p.schema) : p.schema, params[paramKey(p)]).map((m) => ({
                    description: `${p.in} ${p.name}: ${m.description}`,
                    apply: () => {
                      params = { ...params, [paramKey(p)]: m.apply(params[paramKey(p)]) };
                    },
                  })),
            ),
            ...(op.body && hasBody
              ? mutationsFor(op.body.schema, body).map((m) => ({ description: `body: ${m.description}`, apply: () => void (body = m.apply(body)) }))
              : []),
            ...(op.body?.required ? [{ description: 'body missing', apply: () => void (hasBody = false) }] : []),
          ];
          if (candidates.length === 0) return;
          const chosen = candidates[mutationPick % candidates.length];
          chosen.apply();
          mutation = chosen.description;
        }
        const request = buildRequest(op, params, body, hasBody);
        if (!request) return; // unrepresentable (e.g. a path segment "." or a header value with control characters)
        const invalid = classify(validators, op, params, body, hasBody);
        const problems = await execute(request, negative ? (invalid ? mutation : null) : invalid);
        if (problems.length > 0) throw new Error(`${describe(request)}\n    ${problems.join('\n    ')}`);
      });

    const runProperty = async (negative: boolean, numRuns: number, seed: number) => {
      const result = await fc.check(property(negative), { numRuns, seed, endOnFailure: false, interruptAfterTimeLimit: 20_000 });
      if (result.failed && result.errorInstance) {
        const message = String((result.errorInstance as Error).message ?? result.errorInstance);
        const [request, ...problems] = message.split('\n    ');
        for (const problem of problems) {
          const [checkName] = problem.split(':');
          const signature = `${op.operationId}|${checkName}`;
          if (seenFailures.has(signature)) continue;
          seenFailures.add(signature);
          failures.push({ check: checkName, operationId: op.operationId, request, status: null, detail: problem.slice(checkName.length + 2) });
        }
      }
    };

    await runProperty(false, options.runs, options.seed + index * 2);
    if (op.parameters.length > 0 || op.body) await runProperty(true, Math.max(1, Math.ceil(options.runs / 2)), options.seed + index * 2 + 1);
    if (op.requiresAuth) {
      // One request without credentials, on otherwise plausible input.
      const [raw] = fc.sample(requestArbitrary(op), { numRuns: 1, seed: options.seed + index });
      const resolved = resolveRequest(raw, true);
      const request = buildRequest(op, resolved.params, resolved.body, resolved.hasBody);
      if (request) {
        request.anonymous = true;
        const problems = await execute(request, null);
        for (const problem of problems) {
          const [checkName] = problem.split(':');
          if (seenFailures.has(`${op.operationId}|${checkName}`)) continue;
          seenFailures.add(`${op.operationId}|${checkName}`);
          failures.push({ check: checkName, operationId: op.operationId, request: describe(request), status: null, detail: problem.slice(checkName.length + 2) });
        }
      }
    }
    report.push({ operationId: op.operationId, method: op.method.toUpperCase(), path: op.path, requests: requests - before, statuses });
    options.log?.(
      `${op.method.toUpperCase().padEnd(6)} ${op.path.padEnd(44)} ${String(requests - before).padStart(4)} req  ` +
        Object.entries(statuses)
          .map(([s, n]) => `${s}x${n}`)
          .join(' '),
    );
  }

  return { requests, durationMs: Date.now() - started, operations: report, failures };

  // --- helpers bound to this run -------------------------------------------------------------------------------

  /** Path parameters of writes never take a protected (pre-existing) id; bodies and reads may reference any. */
  function resolveRequest(raw: RawRequest, isWrite: boolean): RawRequest {
    const params: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw.params)) params[k] = pool.resolve(v, isWrite && k.startsWith('path:'));
    return { params, body: pool.resolve(raw.body, false), hasBody: raw.hasBody };
  }
}

export function requestArbitrary(op: Operation): fc.Arbitrary<RawRequest> {
  const params: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  for (const p of op.parameters) {
    if (p.in === 'cookie') continue;
    const schema = p.in === 'header' ? headerSafe(p.schema) : p.schema;
    let arb = arbitraryFor(schema, { idFamilyOf: idFamilyOfProperty });
    if (p.json) arb = arb.map((value) => JSON.stringify(value));
    if (p.in === 'path') {
      arb = fc.oneof({ weight: 4, arbitrary: knownId(idFamilyOfPathParameter(op.path, p.name), arb) }, { weight: 1, arbitrary: arb });
    } else if (idFamilyOfProperty(p.name)) {
      arb = fc.oneof({ weight: 3, arbitrary: knownId(idFamilyOfProperty(p.name)!, arb) }, { weight: 1, arbitrary: arb });
    }
    params[paramKey(p)] = arb;
    if (p.required) required.push(paramKey(p));
  }
  const body = op.body ? arbitraryFor(op.body.schema, { idFamilyOf: idFamilyOfProperty }) : fc.constant(undefined);
  const hasBody = op.body ? (op.body.required ? fc.constant(true) : fc.boolean()) : fc.constant(false);
  return fc.record({ params: fc.record(params, { requiredKeys: required }), body, hasBody }) as fc.Arbitrary<RawRequest>;
}


/** Why the request breaks the schema (null when it is valid). */
export function classify(validators: Validators, op: Operation, params: Record<string, unknown>, body: unknown, hasBody: boolean): string | null {
  for (const p of op.parameters) {
    const value = params[paramKey(p)];
    if (value === undefined) {
      if (p.required) return `${p.in} ${p.name} missing`;
      continue;
    }
    if (p.json) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(String(value));
      } catch {
        return `${p.in} ${p.name} not JSON`;
      }
      if (!validators.body.valid(p.schema, parsed)) return `${p.in} ${p.name} invalid`;
      continue;
    }
    if (!validators.params.valid(p.schema, p.in === 'query' || p.in === 'path' || p.in === 'header' ? String(value) : value)) {
      // Path, query and header values travel as strings; coerceTypes turns them back into numbers/booleans.
      return `${p.in} ${p.name} invalid`;
    }
  }
  if (op.body) {
    if (!hasBody) return op.body.required ? 'body missing' : null;
    if (!validators.body.valid(op.body.schema, body)) return `body invalid: ${validators.body.errors(op.body.schema, body).slice(0, 200)}`;
  }
  return null;
}

/** A valid request for the operation (fixed seed), generated from the document like the fuzzer does; the optional body is sent. */
export function validRequest(op: Operation, seed = 7): Request {
  const validators = createValidators();
  const pool = new IdPool();
  for (const [index, raw] of fc.sample(requestArbitrary(op), { numRuns: 50, seed }).entries()) {
    const resolved = pool.resolve(raw, false) as typeof raw;
    if (op.body && !resolved.hasBody && index < 49) continue;
    if (classify(validators, op, resolved.params, resolved.body, resolved.hasBody) !== null) continue;
    const request = buildRequest(op, resolved.params, resolved.body, resolved.hasBody);
    if (request) return request;
  }
  throw new Error(`no valid request sampled for ${op.operationId}`);
}

export interface Validators {
  body: SchemaValidators;
  params: SchemaValidators;
}

export function createValidators(): Validators {
  return { body: new SchemaValidators(createAjv()), params: new SchemaValidators(createAjv({ coerceTypes: true })) };
}

export function paramKey(p: Parameter): string {
  return `${p.in}:${p.name}`;
}

export interface RawRequest {
  params: Record<string, unknown>;
  body: unknown;
  hasBody: boolean;
}

export function buildRequest(op: Operation, params: Record<string, unknown>, body: unknown, hasBody: boolean): Request | null {
  let path = op.path;
  const query: [string, string][] = [];
  const headers: Record<string, string> = {};
  for (const p of op.parameters) {
    const value = params[`${p.in}:${p.name}`];
    if (value === undefined) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (p.in === 'path') {
      // "." and ".." are resolved away by URL parsing, "" collapses the segment: the request would hit another route.
      if (text === '' || text === '.' || text === '..') return null;
      path = path.replace(`{${p.name}}`, encodeURIComponent(text));
    } else if (p.in === 'query') {
      if (Array.isArray(value)) for (const v of value) query.push([p.name, String(v)]);
      else query.push([p.name, typeof value === 'string' ? value : String(value)]);
    } else if (p.in === 'header') {
      if (!/^[\x20-\x7e]*$/.test(text)) return null;
      headers[p.name] = text;
    }
  }
  return { method: op.method, path, query, headers, body, hasBody };
}

function allIds(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) allIds(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if ((k === 'id' || /Id$/.test(k)) && typeof v === 'string') out.push(v);
      else if (/Ids$/.test(k) && Array.isArray(v)) out.push(...v.filter((x): x is string => typeof x === 'string'));
      else allIds(v, out);
    }
  }
  return out;
}

export function formatReport(report: FuzzReport, totalOperations?: number): string {
  const statusTotals: Record<string, number> = {};
  for (const op of report.operations) for (const [s, n] of Object.entries(op.statuses)) statusTotals[s] = (statusTotals[s] ?? 0) + n;
  const lines = [
    `fuzz: ${report.requests} requests, ${report.operations.length}${totalOperations ? ` of ${totalOperations}` : ''} operations, ${(report.durationMs / 1000).toFixed(1)} s`,
    `statuses: ${Object.entries(statusTotals)
      .sort()
      .map(([s, n]) => `${s}x${n}`)
      .join(' ')}`,
    `failures: ${report.failures.length}`,
    ...report.failures.map((f) => `  [${f.check}] ${f.operationId}: ${f.detail}\n      ${f.request}`),
  ];
  return lines.join('\n');
}
