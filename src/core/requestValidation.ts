/**
 * Validation of an operation's input against the OpenAPI document, the one place its validators are built: the HTTP
 * pipeline validates requests with them, RequestContext.invoke (tRPC, MCP) validates its input data with them, and the
 * local admin CLI (src/cli/admin.ts) validates a command's input as the REST operation it stands for (CLI-3).
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { OpenAPIRouter, OpenAPIValidator } from 'openapi-backend';
import type { Document, Operation, Request as BackendRequest } from 'openapi-backend';
import { ApiError } from './errors';
import { dereferencedDocument } from './openapiDocument';

function createAjv(options: object): Ajv2020 {
  // validateSchema: false skips checking each schema against the JSON Schema meta-schema (Redocly lints the
  // document): compiling the meta-schema took 0.1-0.2 s on the first request of every validator instance.
  // verbose: an issue carries its schema, so that `issuesOf` can say a pattern's `x-pattern-message`.
  const ajv = new Ajv2020({ ...options, strict: false, allErrors: true, discriminator: true, validateSchema: false, verbose: true });
  addFormats(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('password', () => true);
  return ajv;
}

/**
 * Request validation for the routes' operations: Ajv2020 with formats, validators compiled on first use. A `oneOf`
 * with a `discriminator` (section kinds) validates only the branch the tag names, so a body gets the issues of its own
 * kind rather than those of every kind (HTTP-9). `definition` is the dereferenced document, which this changes.
 */
export function buildRequestValidator(definition: Document, router: OpenAPIRouter): OpenAPIValidator {
  withoutDiscriminatorMappings(definition);
  return new OpenAPIValidator({
    definition,
    router,
    coerceTypes: true,
    lazyCompileValidators: true,
    ajvOpts: { strict: false, allErrors: true },
    customizeAjv: (_original, ajvOpts) => createAjv(ajvOpts),
  });
}

/**
 * The issues of a refused request as the client gets them: Ajv's errors without what `verbose` adds (the schema and
 * the value), a failed pattern said in words where its schema has an `x-pattern-message` (APP-6), a failed `not` where
 * it has an `x-not-message` (CONTRACT-3).
 */
function issuesOf(errors: ErrorObject[]): ErrorObject[] {
  // ERR-7: as many as problems at most (a 6.5 MB body with 10,001 bad entries answered 13.9 MB of issues).
  return errors.slice(0, maxIssues).map(({ schema: _schema, parentSchema, data: _data, ...issue }) => {
    const said = parentSchema as { 'x-pattern-message'?: unknown; 'x-not-message'?: unknown } | undefined;
    // CONTRACT-3: a `not` (text that is `not` a Blank string) said in words too.
    const message = issue.keyword === 'pattern' ? said?.['x-pattern-message'] : issue.keyword === 'not' ? said?.['x-not-message'] : undefined;
    return typeof message === 'string' ? { ...issue, message } : issue;
  });
}

/** ERR-6: at most this many problems are listed (the document says so). */
const maxProblems = 100;
/** ERR-7: at most this many of Ajv's issues are listed (the document says so). */
const maxIssues = 100;

/** ERR-6: one problem of a refused input, as people read it. */
export interface ValidationProblem {
  /** Where, as a JSON pointer into the request (`/requestBody/boards/4/items/0/kind`); an unknown property is named. */
  instancePath: string;
  /** The rule that failed (the schema keyword). */
  keyword: string;
  message: string;
}

/**
 * ERR-1, ERR-6: the 400 of input the document refuses, with Ajv's issues in `data.issues` (as they are, for clients
 * that read them) and the same failures as people read them in `data.problems` (see `problemsOf`).
 */
export function validationFailure(errors: ErrorObject[], roots: readonly object[] = []): ApiError {
  return new ApiError('BAD_REQUEST', 'Input validation failed', { issues: issuesOf(errors), problems: problemsOf(errors, roots) });
}

/** The root schemas of an operation's request validators: what the `$ref`s openapi-backend puts in them point into. */
export function requestSchemaRoots(validator: OpenAPIValidator, operationId: string): object[] {
  return validator.getRequestValidatorsForOperation(operationId).map((validate) => validate.schema as object);
}

/** Branch validators for `problemsOf`, compiled on first use, one per branch schema (null: it could not be compiled). */
let branchAjv: Ajv2020 | undefined;
const branchValidators = new WeakMap<object, ValidateFunction | null>();

/**
 * A schema with the `{"$ref": "#/…"}` openapi-backend leaves where an object of the dereferenced document occurs a
 * second time (its `decycle`) replaced by that object from the root; null for a reference it cannot follow (a cycle).
 */
function resolvedRefs(schema: unknown, roots: readonly object[], open = new Set<string>()): unknown {
  if (Array.isArray(schema)) return schema.map((entry) => resolvedRefs(entry, roots, open));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    if (!ref.startsWith('#/') || open.has(ref)) throw new Error(`Cannot follow ${ref}`);
    const pointer = ref.slice(2).split('/').map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
    const target = roots.map((root) => pointer.reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part], root)).find((found) => found !== undefined);
    if (target === undefined) throw new Error(`Cannot follow ${ref}`);
    return resolvedRefs(target, roots, new Set([...open, ref]));
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, resolvedRefs(value, roots, open)]));
}

function branchErrors(branch: object, value: unknown, roots: readonly object[]): ErrorObject[] | null {
  let validate = branchValidators.get(branch);
  if (validate === undefined) {
    branchAjv ??= createAjv({});
    try {
      validate = branchAjv.compile(resolvedRefs(branch, roots) as object);
    } catch {
      validate = null;
    }
    branchValidators.set(branch, validate);
  }
  if (!validate) return null;
  return validate(value) ? [] : [...validate.errors!];
}

const isBelow = (path: string, under: string) => path === under || path.startsWith(`${under}/`);

/**
 * ERR-6: a failed `oneOf`/`anyOf` (at `at`) as the errors of its most relevant branch only. Ajv reports every branch's
 * errors and then the `oneOf` itself: ten lines for one wrong field. Each branch is validated again on its own (the
 * verbose error holds the branches and the value): a branch whose root `type` does not match, or whose tag (a `const`
 * of a direct property, the discriminator's kind) differs, is not the one the author meant; of the others the one with
 * the fewest problems. Null when the value matched several branches (that `oneOf` error is the problem itself).
 */
function relevantBranch(error: ErrorObject, depth: number, roots: readonly object[]): ErrorObject[] | null {
  const branches = error.schema;
  if (!Array.isArray(branches) || branches.length === 0 || (error.params as { passingSchemas?: unknown }).passingSchemas) return null;
  const results = branches.map((branch) => branchErrors(branch as object, error.data, roots));
  if (results.some((result) => result === null)) return null;
  const scored = results.map((result, index) => {
    const errors = condensed(result!, depth + 1, roots);
    const mismatch = errors.some((e) => (e.keyword === 'type' && e.instancePath === '') || (e.keyword === 'const' && /^\/[^/]+$/.test(e.instancePath)));
    return { errors, score: (mismatch ? 1_000_000 : 0) + errors.length, index };
  });
  scored.sort((a, b) => a.score - b.score || a.index - b.index);
  const best = scored[0];
  return best.errors.map((e) => ({ ...e, instancePath: `${error.instancePath}${e.instancePath}`, schemaPath: `${error.schemaPath}/${best.index}/${e.schemaPath.replace(/^#\//, '')}` }));
}

/**
 * Ajv's errors with each failed `oneOf`/`anyOf` replaced by its relevant branch's errors (relevantBranch). The errors
 * a combinator's branches produced are the run of errors at or below its instance path right before it (Ajv reports
 * them first), except those of its sibling keywords (same parent schema path).
 */
function condensed(errors: ErrorObject[], depth: number, roots: readonly object[]): ErrorObject[] {
  if (depth > 8) return errors;
  const out: ErrorObject[] = [];
  for (const error of errors) {
    const combinator = error.keyword === 'oneOf' || error.keyword === 'anyOf';
    const branch = combinator ? relevantBranch(error, depth, roots) : null;
    if (!branch) {
      out.push(error);
      continue;
    }
    const parent = error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/'));
    while (out.length > 0) {
      const last = out[out.length - 1];
      const sibling = last.schemaPath.startsWith(`${parent}/`) && !last.schemaPath.startsWith(`${error.schemaPath}/`);
      if (!isBelow(last.instancePath, error.instancePath) || sibling) break;
      out.pop();
    }
    out.push(...branch);
  }
  return out;
}

const quoted = (value: unknown) => (typeof value === 'string' ? `"${value}"` : JSON.stringify(value));

/** A problem's words: Ajv's message, with what it leaves out (the allowed values, the unknown property's name). */
function problemOf(error: ErrorObject): ValidationProblem {
  const params = error.params as Record<string, unknown>;
  const custom = (error.parentSchema as { 'x-pattern-message'?: unknown } | undefined)?.['x-pattern-message'];
  if (error.keyword === 'pattern' && typeof custom === 'string') return { instancePath: error.instancePath, keyword: 'pattern', message: custom };
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    const property = params.additionalProperty.replace(/~/g, '~0').replace(/\//g, '~1');
    return { instancePath: `${error.instancePath}/${property}`, keyword: error.keyword, message: 'is not a property this object takes' };
  }
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    const allowed = params.allowedValues as unknown[];
    const shown = allowed.slice(0, 8).map(quoted).join(', ');
    const value = error.data === undefined ? '' : ` (got ${quoted(error.data)?.slice(0, 80)})`;
    return { instancePath: error.instancePath, keyword: 'enum', message: `must be one of ${shown}${allowed.length > 8 ? `, … (${allowed.length} values)` : ''}${value}` };
  }
  if (error.keyword === 'const') return { instancePath: error.instancePath, keyword: 'const', message: `must be ${quoted(params.allowedValue)}` };
  return { instancePath: error.instancePath, keyword: error.keyword, message: error.message ?? error.keyword };
}

/**
 * ERR-6: the problems of a refused input, one per problem: a failed `oneOf`/`anyOf` as its relevant branch's errors
 * (relevantBranch), an `if` that only repeats its `then`'s errors left out, and each problem once.
 */
export function problemsOf(errors: ErrorObject[], roots: readonly object[] = []): ValidationProblem[] {
  let kept: ErrorObject[];
  try {
    kept = condensed(errors, 0, roots);
  } catch {
    // ERR-2: the 400 stays a 400 whatever a branch does; its problems are then Ajv's errors, each once.
    kept = errors;
  }
  kept = kept.filter((error, _i, all) => error.keyword !== 'if' || !all.some((other) => other !== error && isBelow(other.instancePath, error.instancePath)));
  const seen = new Set<string>();
  const problems = kept.map(problemOf).filter((problem) => {
    const key = `${problem.instancePath}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // Bounded as the document says (an unknown property's name is the client's, of any length).
  return problems.slice(0, maxProblems).map((problem) => ({
    instancePath: problem.instancePath.slice(0, 2048),
    keyword: problem.keyword.slice(0, 64),
    message: problem.message.slice(0, 1024),
  }));
}

export interface OperationInput {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
}

/**
 * An operation's input given as data, validated as a request to it would be (coercing parameters to their declared
 * types): the input as the handler gets it, or the 400 of `validationFailure`.
 */
export function validateInvocation(
  validator: OpenAPIValidator,
  operation: Operation,
  input: OperationInput,
  headers: Record<string, string | string[]> = {},
): { params: unknown; query: unknown; body: unknown } {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_all, name: string) => encodeURIComponent(input.params[name] ?? ''));
  const request: BackendRequest = { method: operation.method, path, query: input.query, body: input.body, headers: { ...headers, 'content-type': 'application/json' } };
  const validation = validator.validateRequest(request, operation);
  if (validation.errors) throw validationFailure(validation.errors, requestSchemaRoots(validator, operation.operationId!));
  return { params: validation.coerced?.params ?? input.params, query: validation.coerced?.query ?? input.query, body: request.body };
}

/**
 * Removes `mapping` from every discriminator of the (dereferenced, private) document: Ajv refuses it and takes the tag
 * values from each branch's `const` instead. The document keeps the mappings for readers (OpenAPI reads a
 * discriminator without a mapping as naming schemas, not `kind` values). Ajv's discriminator checks the tag of
 * objects only and lets any other value through without trying a branch, so a schema without a `type` gets the
 * `object` its branches all have (an array body was a 500; HTTP-9).
 */
function withoutDiscriminatorMappings(node: unknown, seen = new Set<object>()): void {
  if (node === null || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  const schema = node as { discriminator?: { mapping?: unknown }; type?: unknown };
  const discriminator = schema.discriminator;
  if (discriminator && typeof discriminator === 'object') {
    delete discriminator.mapping;
    schema.type ??= 'object';
  }
  for (const value of Object.values(node)) withoutDiscriminatorMappings(value, seen);
}

/** Validators for input that does not arrive as a request (the local CLI): built on first use, once per process. */
let standalone: { router: OpenAPIRouter; validator: OpenAPIValidator; definition: Document; schemas: Map<string, ValidateFunction> } | undefined;

function standaloneValidators() {
  if (!standalone) {
    const definition = dereferencedDocument();
    const router = new OpenAPIRouter({ definition });
    standalone = { router, validator: buildRequestValidator(definition, router), definition, schemas: new Map() };
  }
  return standalone;
}

/** CLI-3: the input of `operationId` validated as a request to it would be (see validateInvocation). */
export function validateOperationInput(operationId: string, input: Partial<OperationInput>): void {
  const { router, validator } = standaloneValidators();
  const operation = router.getOperation(operationId);
  if (!operation) throw new Error(`No operation ${operationId}`);
  validateInvocation(validator, operation, { params: input.params ?? {}, query: input.query ?? {}, body: input.body });
}

/**
 * CLI-3: a value that is part of no operation's input as a whole (a new password for an existing user) validated
 * against the document's schema of that name, compiled as the request validators compile theirs; issues point at
 * `/<at>`.
 */
export function validateSchemaValue(schemaName: string, value: unknown, at: string): void {
  const cache = standaloneValidators();
  let validate = cache.schemas.get(schemaName);
  if (!validate) {
    const schema = cache.definition.components?.schemas?.[schemaName];
    if (!schema) throw new Error(`No schema ${schemaName}`);
    validate = createAjv({}).compile(schema);
    cache.schemas.set(schemaName, validate);
  }
  if (!validate(value)) throw validationFailure(validate.errors!.map((issue) => ({ ...issue, instancePath: `/${at}${issue.instancePath}` })));
}
