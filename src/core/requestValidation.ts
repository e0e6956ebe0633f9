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
  return errors.map(({ schema: _schema, parentSchema, data: _data, ...issue }) => {
    const said = parentSchema as { 'x-pattern-message'?: unknown; 'x-not-message'?: unknown } | undefined;
    // CONTRACT-3: a `not` (text that is `not` a Blank string) said in words too.
    const message = issue.keyword === 'pattern' ? said?.['x-pattern-message'] : issue.keyword === 'not' ? said?.['x-not-message'] : undefined;
    return typeof message === 'string' ? { ...issue, message } : issue;
  });
}

/** ERR-1: the 400 of input the document refuses, with Ajv's issues in `data.issues`. */
export function validationFailure(errors: ErrorObject[]): ApiError {
  return new ApiError('BAD_REQUEST', 'Input validation failed', { issues: issuesOf(errors) });
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
  if (validation.errors) throw validationFailure(validation.errors);
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
