import { versionConflictMessage } from '../boards/document/store';
import { asApiError } from '../db/errors';
/**
 * The MCP endpoint (MCP-1..4): Streamable HTTP, stateless (a server and transport per request, so any instance
 * answers any request), JSON answers. Tool calls run their REST operation for the caller of the request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../core/errors';
import type { HandlerMap, OperationId, RequestContext } from '../core/operation';
import { requirePrincipal, ResponseTakeover } from '../core/operation';
import { applyProposal, approveProposal, callDecision, listedTools, propose, proposalTools, proposalView, readOnlyRefusal, rejectProposal, rejectReviewedProposal, reviewableProposal } from './agent';
import { dataInArguments, invocationOf, Tool, tools } from './tools';

const version: string = require('../../package.json').version;

/** The MCP SDK, loaded on the first MCP request: it takes about 0.2 s to load, which every start would pay otherwise. */
function sdk() {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    ...(require('@modelcontextprotocol/sdk/server/index.js') as typeof import('@modelcontextprotocol/sdk/server/index.js')),
    ...(require('@modelcontextprotocol/sdk/server/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')),
    ...(require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js')),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

const instructions =
  'Tessera hosts dashboard boards. Read a board with get_board, plan a change with plan_board_save, then save_board with expectedVersion set to the version you read; on a 409 conflict read the board again and redo your change. Errors carry the REST message and code. Unless the server runs in write mode, a writing tool does not write: it answers a proposal (proposalId, summary, plan, previewUrl) that a person reviews, and may approve on the previewUrl page; apply_proposal writes exactly that change if the boards have not changed since, reject_proposal drops it.';

/** A tool's answer: the JSON as text and as structured content (an object; lists come as `{items}`). */
function resultOf(body: unknown): CallToolResult {
  const structured = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : { items: body ?? null };
  return { content: [{ type: 'text', text: JSON.stringify(body ?? null) }], structuredContent: structured };
}

/**
 * MCP-3, MCP-7: an error as text and as `{message, code, data}`. Validation issues are in both (a client that shows a
 * model only the text gives it what to fix): `<message> (<CODE>): <path> <issue>; …`.
 */
function errorOf(error: ApiError, data: unknown = error.data): CallToolResult {
  const issues = (data as { issues?: { instancePath?: unknown; message?: unknown; keyword?: unknown; params?: { allowedValues?: unknown; allowedValue?: unknown } }[] } | null)?.issues;
  // AGENT-13: a value outside a list names the list (the first eight), so the agent can pick one
  const allowed = (issue: NonNullable<typeof issues>[number]) => {
    const values = issue.keyword === 'enum' ? issue.params?.allowedValues : issue.keyword === 'const' ? [issue.params?.allowedValue] : undefined;
    return Array.isArray(values) && values.length > 0 ? ` (allowed: ${values.slice(0, 8).map((value) => JSON.stringify(value)).join(', ')})` : '';
  };
  const details = Array.isArray(issues) && issues.length > 0 ? `: ${issues.map((issue) => `${issue.instancePath || '(arguments)'} ${issue.message}${allowed(issue)}`).join('; ')}` : '';
  // AGENT-13: a stale expectedVersion says which tool brings the board as it is now
  const refresh = error.code === 'CONFLICT' && error.message === versionConflictMessage ? ' Read the board again with get_board, redo the change on it and send its version as expectedVersion.' : '';
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.message} (${error.code})${details}${refresh}` }],
    structuredContent: { message: error.message, code: error.code, data },
  };
}

/**
 * AGENT-3: the tools of the endpoint in its mode: the board operations (the reading ones in read-only) and, in propose
 * mode, the proposal tools (write mode still answers them, for proposals made before a change of mode).
 */
function listed(ctx: RequestContext) {
  const all = tools();
  const mode = ctx.config.mcpMode;
  return [...listedTools(mode, all), ...(mode === 'propose' ? proposalTools(all) : [])];
}

/** A tool's work, its errors as tool errors (issues at the tool's argument paths when it is an operation's tool). */
async function answer(ctx: RequestContext, name: string, work: () => Promise<unknown>, tool?: Tool, operationId?: OperationId): Promise<CallToolResult> {
  try {
    return resultOf(await work());
  } catch (thrown) {
    const error = asApiError(thrown);
    if (error instanceof ApiError) return errorOf(error, tool && operationId ? dataInArguments(tool, operationId, error.data) : error.data);
    ctx.logger.error({ err: error, tool: name }, 'MCP tool failed');
    return errorOf(new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', { requestId: ctx.requestId }));
  }
}

/** AGENT-5, AGENT-6: the proposal id argument, checked as an operation's argument would be (MCP-7). */
function proposalIdOf(args: Record<string, unknown>): string {
  const id = args.id;
  if (typeof id !== 'string' || !/^[a-z0-9]{1,64}$/.test(id)) {
    throw new ApiError('BAD_REQUEST', 'Input validation failed', { issues: [{ instancePath: '/id', message: 'must be 1 to 64 lowercase letters and digits' }] });
  }
  return id;
}

async function callTool(ctx: RequestContext, name: string, args: Record<string, unknown>, clientName: string | null): Promise<CallToolResult> {
  const mode = ctx.config.mcpMode;
  if (name === 'apply_proposal' || name === 'reject_proposal') {
    if (mode === 'read-only') return errorOf(readOnlyRefusal(name));
    return answer(ctx, name, () =>
      name === 'apply_proposal' ? applyProposal(ctx, tools(), proposalIdOf(args), clientName) : rejectProposal(ctx, proposalIdOf(args), clientName),
    );
  }
  const tool = tools().find((candidate) => candidate.name === name);
  if (!tool) return errorOf(new ApiError('NOT_FOUND', `Unknown tool: ${name}`));
  const decision = callDecision(mode, tool.annotations);
  if (decision === 'refuse') return errorOf(readOnlyRefusal(name));
  const { operationId, input } = invocationOf(tool, args);
  // AGENT-4: a call that asks for its own dry run (`dryRun: true`) writes nothing, so it runs.
  if (decision === 'propose' && !(args.dryRun === true && tool.dryRun?.query?.dryRun === true)) return answer(ctx, name, () => propose(ctx, tool, args, clientName), tool, operationId);
  return answer(ctx, name, async () => (await ctx.invoke(operationId, input)).body, tool, operationId);
}

function mcpServer(ctx: RequestContext): Server {
  const { Server, ListToolsRequestSchema, CallToolRequestSchema } = sdk();
  const server = new Server({ name: 'tessera', version }, { capabilities: { tools: {} }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: listed(ctx).map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations })),
  }));
  // AGENT-7: the client's name from initialize when this request carried it (a stateless server sees clientInfo on
  // that request only); otherwise the audit entry names the key.
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    callTool(ctx, request.params.name, request.params.arguments ?? {}, server.getClientVersion()?.name ?? null),
  );
  return server;
}

/**
 * MCP-1: a request without `Accept`, or with the range of every type (star slash star), accepts both answers the transport may give, so it is served
 * (the SDK wants both types named and answered such a request 406); only an `Accept` that leaves one out is a 406.
 */
function acceptBothWhenUnrestricted(req: IncomingMessage): void {
  const accept = req.headers.accept?.trim();
  if (accept && !accept.split(',').some((range) => range.split(';')[0].trim() === '*/*')) return;
  const both = 'application/json, text/event-stream';
  req.headers.accept = both;
  const raw = req.rawHeaders.flatMap((value, i, all) => (i % 2 === 0 ? (value.toLowerCase() === 'accept' ? [] : [value, all[i + 1]]) : []));
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw, 'Accept', both);
}

async function serve(ctx: RequestContext, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  acceptBothWhenUnrestricted(req);
  const server = mcpServer(ctx);
  const transport = new (sdk().StreamableHTTPServerTransport)({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

const mcp = async (_input: unknown, ctx: RequestContext) => ({
  status: 200 as const,
  body: new ResponseTakeover((req, res, body) => serve(ctx, req, res, body)),
});

export const mcpHandlers = {
  mcpRequest: mcp,
  mcpRequestAtHomarrPath: mcp,
  /** AGENT-8, AGENT-9: a proposal the caller made or may review, read-only. */
  async getMcpProposal({ params }, ctx) {
    return { status: 200 as const, body: proposalView(await reviewableProposal(ctx, params.proposalId)) };
  },
  /** AGENT-10: a person approves: the planned change is written as apply_proposal writes it. */
  async approveMcpProposal({ params }, ctx) {
    return { status: 200 as const, body: await approveProposal(ctx, tools(), params.proposalId) };
  },
  /** AGENT-11: a person rejects: the proposal is dropped. */
  async rejectMcpProposal({ params }, ctx) {
    return { status: 200 as const, body: await rejectReviewedProposal(ctx, params.proposalId) };
  },
} satisfies Partial<HandlerMap>;
