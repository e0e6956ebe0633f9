/**
 * Reads an OpenAPI 3.1 document into what the fuzzer needs: a dereferenced copy (local `$ref`s inlined), the list of
 * operations with their parameters, request body and responses, and an Ajv2020 instance configured like the
 * server's (ajv-formats plus the OpenAPI int32/int64/password formats). Nothing here knows a single path of Tessera:
 * everything comes from the document, so routes added later are fuzzed without touching this code.
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

export type Schema = Record<string, any>;
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
export const httpMethods: HttpMethod[] = ['get', 'put', 'post', 'delete', 'patch'];

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
  /** A parameter declared with `content: application/json` (tRPC's `input`): its value is JSON text of `schema`. */
  json?: boolean;
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  path: string;
  parameters: Parameter[];
  /** The application/json request body, if the operation takes one. */
  body: { required: boolean; schema: Schema } | null;
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  /** Every security alternative names a scheme (no `{}` alternative, not `security: []`). */
  requiresAuth: boolean;
  tags: string[];
}

/** Inlines every local `$ref` (`#/...`). A reference cycle is cut with `{}` (accept anything) at re-entry. */
export function dereference<T>(document: T): T {
  const root = document as any;
  const resolved = new Map<string, unknown>();
  const inProgress = new Set<string>();
  const pointer = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .map((token) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((node: any, token) => (node === undefined ? undefined : node[token]), root);
  const walk = (node: unknown, parentKey = ''): unknown => {
    if (Array.isArray(node)) return node.map((child) => walk(child));
    if (!node || typeof node !== 'object') return node;
    const object = node as Record<string, unknown>;
    if (typeof object.$ref === 'string' && object.$ref.startsWith('#/')) {
      const ref = object.$ref;
      if (resolved.has(ref)) return resolved.get(ref);
      if (inProgress.has(ref)) return {};
      inProgress.add(ref);
      const target = pointer(ref);
      if (target === undefined) throw new Error(`Unresolvable $ref ${ref}`);
      const value = walk(target);
      inProgress.delete(ref);
      resolved.set(ref, value);
      return value;
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(object)) {
      // Examples are data, not schema (unless `example` is the name of a property).
      out[key] = (key === 'example' || key === 'examples') && parentKey !== 'properties' ? value : walk(value, key);
    }
    return out;
  };
  return walk(root) as T;
}

export function listOperations(document: any): Operation[] {
  const doc = dereference(document);
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of httpMethods) {
      const op = item?.[method];
      if (!op) continue;
      const parameters = new Map<string, Parameter>();
      for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const content = p.content?.['application/json'];
        parameters.set(`${p.in}:${p.name}`, {
          name: p.name,
          in: p.in,
          required: p.in === 'path' || !!p.required,
          schema: p.schema ?? content?.schema ?? {},
          ...(p.schema === undefined && content ? { json: true } : {}),
        });
      }
      const json = op.requestBody?.content?.['application/json'];
      const security: unknown[] = op.security ?? doc.security ?? [];
      operations.push({
        operationId: op.operationId ?? `${method} ${path}`,
        method,
        path,
        parameters: [...parameters.values()],
        body: json ? { required: !!op.requestBody.required, schema: json.schema ?? {} } : null,
        responses: op.responses ?? {},
        requiresAuth: security.length > 0 && security.every((r) => Object.keys(r as object).length > 0),
        tags: op.tags ?? [],
      });
    }
  }
  return operations;
}

/** An Ajv2020 configured like the server's (src/http/app.ts). */
export function createAjv(options: { coerceTypes?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: options.coerceTypes ?? false, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('password', () => true);
  return ajv;
}

/** Compiles each distinct schema object once. */
export class SchemaValidators {
  private readonly cache = new WeakMap<object, ValidateFunction>();
  constructor(private readonly ajv: Ajv2020) {}
  get(schema: Schema): ValidateFunction {
    let fn = this.cache.get(schema);
    if (!fn) {
      fn = this.ajv.compile(schema);
      this.cache.set(schema, fn);
    }
    return fn;
  }
  valid(schema: Schema, value: unknown): boolean {
    return this.get(schema)(value) as boolean;
  }
  errors(schema: Schema, value: unknown): string {
    const fn = this.get(schema);
    fn(value);
    return this.ajv.errorsText(fn.errors, { dataVar: 'body' });
  }
}

/** The declared response for a status: exact code, then `4XX`-style range, then `default`. */
export function declaredResponse(op: Operation, status: number): { content?: Record<string, { schema?: Schema }> } | undefined {
  return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
}
