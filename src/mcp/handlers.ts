import { versionConflictMessage } from '../boards/document/store';
import { asApiError } from '../db/errors';
/**
 * The MCP endpoint (MCP-1..4): Streamable HTTP, stateless (a server and transport per request, so any instance
 * answers any request), JSON answers. Tool calls run their REST operation for the caller of the request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, notFound } from '../core/errors';
import { protectedResourceMetadata } from '../identity/oidc/mcpResource';
import type { HandlerMap, OperationId, RequestContext } from '../core/operation';
import { ResponseTakeover } from '../core/operation';
import { applyProposal, approveProposal, callDecision, Elicit, listedTools, propose, proposalTools, proposalView, readOnlyRefusal, rejectProposal, rejectReviewedProposal, reviewableProposal } from './agent';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { effectiveMcpMode } from '../identity/apiKeys';
import { newId } from '../db/ids';
import { awaitAnswer, findSession, forgetAnswer, McpSessionFacts, openSession, storeAnswer, takeAnswer } from './sessions';
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
  const mode = modeOf(ctx);
  return [...listedTools(mode, all), ...(mode === 'propose' ? proposalTools(all) : [])];
}

/** KEY-9, AGENT-18: the caller's MCP mode: the server's, narrowed by the key's own. */
const modeOf = (ctx: RequestContext) => effectiveMcpMode(ctx.config.mcpMode, ctx.principal);

/** AGENT-18: the read-only refusal, naming the key when the key's mode (not the server's) made it read-only. */
const refusal = (ctx: RequestContext, name: string) => readOnlyRefusal(name, ctx.config.mcpMode !== 'read-only');

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

async function callTool(ctx: RequestContext, name: string, args: Record<string, unknown>, clientName: string | null, elicit: Elicit | null): Promise<CallToolResult> {
  const mode = modeOf(ctx);
  if (name === 'apply_proposal' || name === 'reject_proposal') {
    if (mode === 'read-only') return errorOf(refusal(ctx, name));
    return answer(ctx, name, () =>
      name === 'apply_proposal' ? applyProposal(ctx, tools(), proposalIdOf(args), clientName, { mode, elicit }) : rejectProposal(ctx, proposalIdOf(args), clientName),
    );
  }
  const tool = tools().find((candidate) => candidate.name === name);
  if (!tool) return errorOf(new ApiError('NOT_FOUND', `Unknown tool: ${name}`));
  const decision = callDecision(mode, tool.annotations);
  if (decision === 'refuse') return errorOf(refusal(ctx, name));
  const { operationId, input } = invocationOf(tool, args);
  // AGENT-4: a call that asks for its own dry run (`dryRun: true`) writes nothing, so it runs.
  if (decision === 'propose' && !(args.dryRun === true && tool.dryRun?.query?.dryRun === true)) return answer(ctx, name, () => propose(ctx, tool, args, clientName), tool, operationId);
  return answer(ctx, name, async () => (await ctx.invoke(operationId, input)).body, tool, operationId);
}

function mcpServer(ctx: RequestContext, session: McpSessionFacts | null, transport: Transport, closed: () => boolean): Server {
  const { Server, ListToolsRequestSchema, CallToolRequestSchema } = sdk();
  const server = new Server({ name: 'tessera', version }, { capabilities: { tools: {} }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: listed(ctx).map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations })),
  }));
  // AGENT-7, AGENT-14: the client's name from initialize, kept with its session (any instance), or carried by this
  // request; otherwise the audit entry names the key.
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) =>
    callTool(
      ctx,
      request.params.name,
      request.params.arguments ?? {},
      session?.clientName ?? server.getClientVersion()?.name ?? null,
      session && formElicitation(session.capabilities) ? elicitOver(ctx, session.id, transport, extra.requestId, closed) : null,
    ),
  );
  return server;
}

/** AGENT-15: a client supports form elicitation when it declares `elicitation` empty (form, as before modes) or with `form`. */
function formElicitation(capabilities: Record<string, unknown>): boolean {
  const elicitation = capabilities.elicitation as Record<string, unknown> | undefined;
  return typeof elicitation === 'object' && elicitation !== null && (Object.keys(elicitation).length === 0 || 'form' in elicitation);
}

/** AGENT-16: how long apply_proposal waits for the person's answer before it counts as cancelled. */
export const elicitationTimeoutMs = 10 * 60_000;
const answerPollMs = 200;

/**
 * AGENT-16: an elicitation on the SSE stream of the tool call's own POST (`elicitation/create`, form mode, a yes/no
 * question): the client posts its answer as a new request of the session, which any instance stores with the session
 * in the database; this instance reads it there. No answer in time, or the stream gone, counts as cancelled.
 */
function elicitOver(ctx: RequestContext, sessionId: string, transport: Transport, relatedRequestId: RequestId, closed: () => boolean): Elicit {
  return async (message) => {
    const { ElicitResultSchema } = sdk();
    const elicitationId = `elicit-${newId()}`;
    await awaitAnswer(ctx.db, sessionId, elicitationId);
    try {
      await transport.send(
        {
          jsonrpc: '2.0',
          id: elicitationId,
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message,
            requestedSchema: {
              type: 'object',
              properties: { approve: { type: 'boolean', title: 'Apply this change', description: 'Write the proposed change now.', default: true } },
              required: ['approve'],
            },
          },
        },
        { relatedRequestId },
      );
      const deadline = Date.now() + elicitationTimeoutMs;
      while (Date.now() < deadline && !closed()) {
        const answer = await takeAnswer(ctx.db, sessionId, elicitationId);
        if (answer === null) return 'cancel';
        if (answer !== undefined) {
          const parsed = ElicitResultSchema.safeParse((answer as { result?: unknown }).result);
          if (!parsed.success) return 'cancel';
          const { action, content } = parsed.data;
          return action === 'accept' && content?.approve === false ? 'decline' : action;
        }
        await new Promise((resolve) => setTimeout(resolve, answerPollMs));
      }
      return 'cancel';
    } finally {
      await forgetAnswer(ctx.db, sessionId, elicitationId).catch(() => undefined);
    }
  };
}

/** A JSON-RPC message that answers a request of the server (the client's answer to an elicitation). */
const isAnswer = (body: unknown): body is { id: string | number; result?: unknown; error?: unknown } =>
  typeof body === 'object' && body !== null && !Array.isArray(body) && !('method' in body) && 'id' in body && ('result' in body || 'error' in body);

const isInitialize = (body: unknown): body is { method: 'initialize'; params?: { clientInfo?: { name?: unknown }; capabilities?: unknown } } =>
  typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';

const sessionHeader = 'mcp-session-id';

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
  // The caller's key holds its MCP sessions; none (the mock front, MOCK-7, has no principal and no database): no sessions.
  const keyId = ctx.principal?.apiKeyId ?? null;
  const headerValue = req.headers[sessionHeader];
  const sessionId = typeof headerValue === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(headerValue) ? headerValue : null;
  let session: McpSessionFacts | null = null;
  if (isAnswer(body)) {
    // AGENT-16: the client's answer to an elicitation: stored with its session for the instance that waits for it.
    if (sessionId && keyId) await storeAnswer(ctx.db, sessionId, keyId, String(body.id), body);
    res.writeHead(202).end();
    return;
  }
  if (isInitialize(body) && keyId) {
    // AGENT-14: a session in the database, so that any instance knows what the client declared.
    const clientInfo = body.params?.clientInfo;
    const capabilities = typeof body.params?.capabilities === 'object' && body.params.capabilities !== null ? (body.params.capabilities as Record<string, unknown>) : {};
    const id = await openSession(ctx.db, keyId, typeof clientInfo?.name === 'string' ? clientInfo.name.slice(0, 200) : null, capabilities);
    res.setHeader('Mcp-Session-Id', id);
  } else if (sessionId && keyId) {
    session = await findSession(ctx.db, sessionId, keyId);
  }
  // AGENT-16: a client that can be asked gets its answers as an SSE stream, on which an elicitation can go first.
  const canAsk = session !== null && formElicitation(session.capabilities);
  const transport = new (sdk().StreamableHTTPServerTransport)({ sessionIdGenerator: undefined, enableJsonResponse: !canAsk });
  let isClosed = false;
  const server = mcpServer(ctx, session, transport, () => isClosed);
  res.on('close', () => {
    isClosed = true;
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

/** MCPAUTH-2: the protected-resource metadata, when OAuth for MCP is configured; 404 otherwise (MCP-5). */
const resourceMetadata = async (_input: unknown, ctx: RequestContext) => {
  const oauth = ctx.config.mcpOAuth;
  if (!oauth) throw notFound();
  return { status: 200 as const, body: protectedResourceMetadata(oauth) };
};

export const mcpHandlers = {
  mcpRequest: mcp,
  mcpRequestAtHomarrPath: mcp,
  getProtectedResourceMetadata: resourceMetadata,
  getProtectedResourceMetadataForMcp: resourceMetadata,
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
