import { asApiError } from '../db/errors';
import { ApiError } from '../core/errors';
import { openApiDocument } from '../core/openapiDocument';
import type { HandlerMap, RequestContext } from '../core/operation';
import { procedures } from './procedures';
import { batchStatus, errorOf, inputsOf, isBatch, procedureNames, resultOf, unwrapInput } from './wire';

type Kind = 'query' | 'mutation';

/** One call: its answer and HTTP status, an error answered as tRPC answers it (TRPC-2). */
async function call(ctx: RequestContext, kind: Kind, path: string, envelope: unknown): Promise<{ status: number; body: unknown }> {
  // Own keys only: `toString`, `constructor` or `__proto__` are no procedures (TRPC-2: 404).
  const procedure = Object.hasOwn(procedures, path) ? procedures[path] : undefined;
  try {
    if (!procedure) throw new ApiError('NOT_FOUND', `No procedure found on path "${path}"`);
    if (procedure.type !== kind) {
      throw new ApiError('METHOD_NOT_SUPPORTED', `Unsupported ${kind === 'query' ? 'GET' : 'POST'}-request to ${procedure.type} procedure at path "${path}"`);
    }
    return { status: 200, body: resultOf(await procedure.run(ctx, unwrapInput(envelope))) };
  } catch (thrown) {
    const error = asApiError(thrown);
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, body: errorOf(error, path) };
  }
}

/** TRPC-1..3: one call or a batch; GET carries the input in `?input=`, POST in the body. */
async function answer(ctx: RequestContext, kind: Kind, path: string, batch: boolean, raw: unknown) {
  const names = procedureNames(path, batch);
  let inputs: unknown[];
  try {
    inputs = inputsOf(raw, names.length, batch);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, body: errorOf(error) };
  }
  // In order, one after another: a batch's mutations apply in the order the client sent them.
  const results: { status: number; body: unknown }[] = [];
  for (const [i, name] of names.entries()) results.push(await call(ctx, kind, name, inputs[i]));
  if (!batch) return results[0];
  return { status: batchStatus(results.map((result) => result.status)), body: results.map((result) => result.body) };
}

/**
 * The `input` query parameter: JSON, declared `content: application/json`, so request validation has parsed it
 * already; a value that is no JSON stays the text it was.
 */
function parseQueryInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch {
    throw new ApiError('BAD_REQUEST', 'Failed to parse the input parameter: invalid JSON');
  }
}


/** The tRPC-compatible endpoints: `GET /api/trpc/<procedures>` for queries, `POST` for mutations. */
export const trpcHandlers = {
  async trpcQuery({ params, query }, ctx) {
    const { status, body } = await answer(ctx, 'query', params.procedures, isBatch(query.batch), parseQueryInput(query.input));
    return { status, body } as never;
  },

  async trpcMutation({ params, query, body }, ctx) {
    const answered = await answer(ctx, 'mutation', params.procedures, isBatch(query.batch), body);
    return { status: answered.status, body: answered.body } as never;
  },
} satisfies Partial<HandlerMap>;

/** The longest procedure path a request may name: the `procedures` parameter's maxLength, read from the contract. */
const longestProcedurePath = procedurePathMaxLength();

function procedurePathMaxLength(): number {
  const parameters = (openApiDocument.paths?.['/api/trpc/{procedures}']?.parameters ?? []) as { name?: string; schema?: { maxLength?: number } }[];
  const maxLength = parameters.find((parameter) => parameter.name === 'procedures')?.schema?.maxLength;
  if (typeof maxLength !== 'number') throw new Error('generated/openapi.json: /api/trpc/{procedures} declares no maxLength for procedures');
  return maxLength;
}

/** The procedure path of a request as an error names it: none when it does not decode or is longer than allowed. */
function errorPath(requestPath: string): string | undefined {
  try {
    const path = decodeURIComponent(requestPath.slice('/api/trpc/'.length));
    return path.length > 0 && path.length <= longestProcedurePath ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Errors met before a procedure runs (authentication, content type, body size, a path the contract refuses) in the
 * tRPC shape (TRPC-2).
 */
export const trpcErrorFormat = {
  prefix: '/api/trpc/',
  body: (error: ApiError, path: string) => errorOf(error, errorPath(path)),
};
