/**
 * AGENT-1, AGENT-2: what a tool does, derived from the REST operation behind it (one pure function, no table per tool):
 * the MCP tool annotations (MCP 2025-11-25 `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`)
 * and whether the tool writes (what MCP modes hide, refuse or turn into proposals).
 */

export type HttpMethod = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** What the annotations are derived from: the operation's method, path, arguments and extensions. */
export interface OperationFacts {
  method: HttpMethod;
  path: string;
  /** Names of the operation's query parameters and top-level body properties. */
  argumentNames: readonly string[];
  /** The operation's `x-reaches-upstream` (it asks services outside Tessera, the live data of integrations). */
  reachesUpstream: boolean;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Arguments that let a write delete or overwrite what it does not name: FLEET prune and force, FILE onConflict=replace. */
const overwritingArguments = ['prune', 'force', 'onConflict'];

/** PLAN-1, PLAN-5: a POST at `…/plan` is a dry run of the write at its parent path (it writes nothing). */
export const isDryRun = (facts: Pick<OperationFacts, 'method' | 'path'>): boolean => facts.method === 'post' && facts.path.endsWith('/plan');

/**
 * AGENT-1: GET and dry runs are read-only; a write is destructive when its method is DELETE, PUT (a whole replacement:
 * what the body does not name goes) or PATCH (fields replaced), or when an argument lets it prune or overwrite; PUT
 * and DELETE are idempotent (and reads, trivially); open-world only when the operation reaches upstream services.
 */
export function annotationsOf(facts: OperationFacts): ToolAnnotations {
  const readOnly = facts.method === 'get' || isDryRun(facts);
  const destructive =
    !readOnly && (facts.method === 'delete' || facts.method === 'put' || facts.method === 'patch' || facts.argumentNames.some((name) => overwritingArguments.includes(name)));
  return {
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    idempotentHint: readOnly || facts.method === 'put' || facts.method === 'delete',
    openWorldHint: facts.reachesUpstream,
  };
}

/** AGENT-2: a tool writes unless it is read-only. */
export const writes = (annotations: ToolAnnotations): boolean => !annotations.readOnlyHint;
