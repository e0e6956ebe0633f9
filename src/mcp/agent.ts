/**
 * MCP modes and proposals (AGENT-2..7): which tools a mode lists and runs, and the proposals `propose` mode answers
 * instead of writing, applied (or rejected) later by any instance through the same operations.
 */
import type { components } from '../../generated/api';
import type { McpMode } from '../config/config';
import { ApiError, conflict, notFound } from '../core/errors';
import type { InvokeInput, OperationId, RequestContext } from '../core/operation';
import { requirePrincipal } from '../core/operation';
import type { Db } from '../db/database';
import type { ProposedBoard } from '../db/models/McpProposal';
import { allows, BoardPermissionLevel, loadBoardAccess } from '../boards/access';
import { principalOfKey } from '../identity/apiKeys';
import { boardInKeyScope, boardScopedKeyCannotCreate, keyBoardScope, loadPrincipal, type Principal } from '../identity/principal';
import { audited, recordAudit } from '../observability/audit';
import { annotationsOf, ToolAnnotations, writes } from './annotations';
import { deleteExpiredProposals, findProposal, insertProposal, Proposal, restoreProposal, takeProposal } from './proposals';
import { invocationOf, Tool } from './tools';

/** A tool of the MCP surface that is not a REST operation: the proposal tools (AGENT-5, AGENT-6). */
export interface ProposalTool {
  name: 'apply_proposal' | 'reject_proposal';
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required: string[] };
  annotations: ToolAnnotations;
}

const proposalId = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z0-9]+$', description: 'The proposalId a writing tool answered in propose mode.' };

/** AGENT-1: the proposal tools' annotations, from what they do: apply runs any proposed write; reject deletes a proposal. */
export function proposalTools(all: readonly Tool[]): ProposalTool[] {
  const writing = all.filter((tool) => writes(tool.annotations));
  return [
    {
      name: 'apply_proposal',
      description:
        'Write exactly the change a proposal planned, as you, if every board it touches is still at the planned version; otherwise a CONFLICT error names the board (read it again and propose again). Only your own, unexpired proposals.',
      inputSchema: { type: 'object', properties: { id: proposalId }, required: ['id'] },
      annotations: { readOnlyHint: false, destructiveHint: writing.some((tool) => tool.annotations.destructiveHint), idempotentHint: false, openWorldHint: false },
    },
    {
      name: 'reject_proposal',
      description: 'Drop a proposal without writing anything.',
      inputSchema: { type: 'object', properties: { id: proposalId }, required: ['id'] },
      annotations: annotationsOf({ method: 'delete', path: '/mcp/proposals/{id}', argumentNames: ['id'], reachesUpstream: false }),
    },
  ];
}

/** AGENT-3: `read-only` lists the reading tools only; the other modes list every tool and the proposal tools. */
export function listedTools<T extends { annotations: ToolAnnotations }>(mode: McpMode, candidates: readonly T[]): T[] {
  return mode === 'read-only' ? candidates.filter((tool) => !writes(tool.annotations)) : [...candidates];
}

/** AGENT-2, AGENT-3, AGENT-4: what a call of a tool does in a mode. */
export function callDecision(mode: McpMode, annotations: ToolAnnotations): 'run' | 'refuse' | 'propose' {
  if (!writes(annotations)) return 'run';
  return mode === 'read-only' ? 'refuse' : mode === 'propose' ? 'propose' : 'run';
}

/**
 * AGENT-3: the tool error of a writing tool in read-only mode; AGENT-18: when the key's own mode made it read-only
 * (KEY-9), the message says so.
 */
export const readOnlyRefusal = (tool: string, byKey = false) =>
  new ApiError(
    'FORBIDDEN',
    byKey ? `The tool ${tool} writes, and this API key's MCP mode is read-only` : `The tool ${tool} writes, and this MCP endpoint is read-only (MCP_MODE=read-only)`,
    { tool, mode: 'read-only' },
  );

/** AGENT-4: the boards a write touches: its path's board, the body's `boardId`, and the boards its dry run names. */
export function boardIdsOf(tool: Pick<Tool, 'path'>, input: InvokeInput, plan: unknown): string[] {
  const ids: string[] = [];
  const add = (id: unknown) => {
    if (typeof id === 'string' && !ids.includes(id)) ids.push(id);
  };
  if (tool.path.startsWith('/api/boards/{id}')) add(input.params?.id);
  add((input.body as { boardId?: unknown } | null | undefined)?.boardId);
  const planned = plan as { boardId?: unknown; boards?: { boardId?: unknown }[] } | null;
  add(planned?.boardId);
  if (Array.isArray(planned?.boards)) for (const entry of planned.boards) add(entry?.boardId);
  return ids;
}

interface Counts {
  added?: unknown[];
  removed?: unknown[];
  updated?: unknown[];
}
const counted = (label: string, counts: Counts | undefined) =>
  counts ? `${label} +${counts.added?.length ?? 0} -${counts.removed?.length ?? 0} ~${counts.updated?.length ?? 0}` : null;

/** AGENT-4: one line a person reads: the tool, the boards with their versions, and what the plan changes. */
export function summaryOf(tool: string, boards: readonly Pick<ProposedBoard, 'name' | 'version'>[], plan: unknown): string {
  const where = boards.length ? ` on ${boards.map((board) => `board "${board.name}" (version ${board.version})`).join(', ')}` : '';
  const planned = plan as { changes?: { items?: Counts; sections?: Counts; layouts?: Counts }; summary?: Record<string, unknown> } | null;
  const parts = [counted('items', planned?.changes?.items), counted('sections', planned?.changes?.sections), counted('layouts', planned?.changes?.layouts)].filter(Boolean);
  const set = planned?.summary && typeof planned.summary === 'object' ? Object.entries(planned.summary).filter(([, value]) => typeof value === 'number').map(([key, value]) => `${key} ${value}`) : [];
  const what = [...parts, ...set].join(', ');
  return `${tool}${where}${what ? `: ${what}` : ''}`;
}

/** The boards a proposal touches as the caller reads them now (404 for a board the caller may not view). */
async function readBoards(ctx: RequestContext, ids: readonly string[]): Promise<ProposedBoard[]> {
  const boards: ProposedBoard[] = [];
  for (const id of ids) {
    const read = await ctx.invoke('getBoard', { params: { id } });
    const board = read.body as { id: string; name: string; version: number };
    const etag = read.headers.ETag;
    boards.push({ boardId: board.id, name: board.name, version: board.version, etag: typeof etag === 'string' ? etag : null });
  }
  return boards;
}

type McpProposalView = components['schemas']['McpProposal'];

/**
 * AGENT-9: where a person reviews a proposal: the preview page's path (the server has no setting of its public
 * address, so the link is relative to the address the agent reached it by).
 */
export const previewUrlOf = (proposalId: string) => `/proposals/${encodeURIComponent(proposalId)}`;

/** What a proposal answers to the agent (and GET /api/mcp/proposals/{id}): everything but the stored input and etags. */
export function proposalView(proposal: Proposal): McpProposalView {
  return {
    proposalId: proposal.id,
    previewUrl: previewUrlOf(proposal.id),
    tool: proposal.tool,
    operationId: proposal.operationId,
    summary: proposal.summary,
    plan: proposal.plan as McpProposalView['plan'],
    boards: proposal.boards.map(({ boardId, name, version }) => ({ boardId, name, version })),
    client: proposal.clientName,
    createdAt: proposal.createdAt,
    expiresAt: proposal.expiresAt,
  };
}

/**
 * AGENT-4: a writing tool's call in propose mode: its dry run (when the operation has one; its errors are the tool's
 * errors), the boards it touches at their versions now, stored as a proposal. Nothing of the board is written.
 */
export async function propose(ctx: RequestContext, tool: Tool, args: Record<string, unknown>, clientName: string | null) {
  const principal = requirePrincipal(ctx);
  const { operationId, input } = invocationOf(tool, args);
  // KEY-8: a board-scoped key cannot create boards, so it does not propose to either.
  if ((operationId === 'createBoard' || operationId === 'duplicateBoard') && keyBoardScope(principal) !== null) throw boardScopedKeyCannotCreate();
  const plan = tool.dryRun ? (await ctx.invoke(tool.dryRun.operationId, { ...input, query: { ...input.query, ...tool.dryRun.query } })).body : null;
  const boards = await readBoards(ctx, boardIdsOf(tool, input, plan));
  const proposal = await ctx.db.transaction(async (trx) => {
    await deleteExpiredProposals(trx);
    return insertProposal(
      trx,
      { userId: principal.userId, apiKeyId: principal.apiKeyId, clientName, tool: tool.name, operationId, input, plan, summary: summaryOf(tool.name, boards, plan), boards },
      ctx.config.mcpProposalTtlSeconds,
    );
  });
  return { status: 'proposed', ...proposalView(proposal), next: 'Show the summary and plan to the person, with the previewUrl page where they can approve or reject it; apply_proposal writes it, reject_proposal drops it.' };
}

/** AGENT-5: 409 naming the board that changed since the proposal (`now` null: the board is gone or hidden). */
function staleBoard(planned: ProposedBoard, now: ProposedBoard | null): ApiError {
  return conflict(`Board "${planned.name}" changed since the proposal was made; read it again and propose again`, {
    boardId: planned.boardId,
    name: planned.name,
    plannedVersion: planned.version,
    version: now?.version ?? null,
  });
}

export const proposalNotFound = () => notFound('Proposal not found');

/**
 * AGENT-17: asks the person at the MCP client to confirm (elicitation, form mode); answers the client's action, or
 * `cancel` when no answer came.
 */
export type Elicit = (message: string) => Promise<'accept' | 'decline' | 'cancel'>;

/** AGENT-17: how an apply_proposal was approved, as its audit entry names it. */
export type AgentApproval = 'elicitation' | 'agentApprove' | 'writeMode';

/** AGENT-17: the question the person at the client answers before a proposal is written. */
export const confirmationMessage = (proposal: Pick<Proposal, 'id' | 'summary'>) =>
  `Apply this change? ${proposal.summary}. Review it at ${previewUrlOf(proposal.id)}.`;

/**
 * AGENT-5, AGENT-17: applies a proposal of the caller's user once it is approved: in write mode (the caller's
 * effective mode, KEY-9) as asked; else by the person at the client when it can ask (`elicit`: accepted is written,
 * declined or cancelled is not and the proposal stays); else when the key holds `agentApprove` (KEY-10); otherwise it
 * waits for a person on the preview page. An approved proposal is taken from the table (once, whichever instance asks
 * first), then written by applyTaken.
 */
export async function applyProposal(ctx: RequestContext, tools: readonly Tool[], id: string, clientName: string | null, how: { mode: McpMode; elicit: Elicit | null }) {
  const principal = requirePrincipal(ctx);
  const found = await findProposal(ctx.db, id, principal.userId);
  if (!found) throw proposalNotFound();
  const unapplied = { proposalId: found.id, tool: found.tool, summary: found.summary, previewUrl: previewUrlOf(found.id) };
  let approval: AgentApproval;
  if (how.mode === 'write') approval = 'writeMode';
  else if (how.elicit) {
    const action = await how.elicit(confirmationMessage(found));
    if (action !== 'accept') {
      return { status: action === 'decline' ? ('declined' as const) : ('cancelled' as const), ...unapplied, next: 'Nothing was written; the proposal stays until it expires: a person may still approve or reject it on the previewUrl page.' };
    }
    approval = 'elicitation';
  } else if (principal.keyBounds?.agentApprove) approval = 'agentApprove';
  else {
    return {
      status: 'awaiting-approval' as const,
      ...unapplied,
      next: 'Nothing was written: this client cannot ask the person to confirm, and this API key may not approve its own proposals. Ask the person to approve or reject it on the previewUrl page.',
    };
  }
  return applyTaken(ctx, tools, await takeProposal(ctx.db, id, principal.userId), clientName, principal, approval);
}

/**
 * AGENT-5, AGENT-10: the write of a taken proposal, for apply_proposal and an approval alike: every board checked
 * against its planned version and ETag (409 naming the first that changed; the proposal is then gone), then the
 * planned operation with the planned arguments as `ctx`'s caller (the proposer), guarded by If-Match where the
 * operation takes it (so a change between the check and the write is refused in the write's own transaction), and
 * one audit entry naming the approver.
 */
async function applyTaken(ctx: RequestContext, tools: readonly Tool[], proposal: Proposal | null, clientName: string | null, approver: Principal, approval: AgentApproval | 'review') {
  const principal = requirePrincipal(ctx);
  if (!proposal) throw proposalNotFound();
  const tool = tools.find((candidate) => candidate.name === proposal.tool);
  if (!tool) throw proposalNotFound();
  for (const planned of proposal.boards) {
    let now: ProposedBoard | null = null;
    try {
      [now] = await readBoards(ctx, [planned.boardId]);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'NOT_FOUND')) {
        await restoreProposal(ctx.db, proposal);
        throw error;
      }
    }
    if (!now || now.version !== planned.version || (planned.etag && now.etag !== planned.etag)) throw staleBoard(planned, now);
  }
  const guarded = tool.ifMatch ? proposal.boards.find((board) => board.boardId === proposal.input.params?.id && board.etag) : undefined;
  let result;
  try {
    result = await ctx.invoke(proposal.operationId, { ...proposal.input, ...(guarded ? { headers: { 'if-match': guarded.etag! } } : {}) });
  } catch (error) {
    if (guarded && error instanceof ApiError && error.code === 'PRECONDITION_FAILED') throw staleBoard(guarded, null);
    await restoreProposal(ctx.db, proposal);
    throw error;
  }
  await recordAudit(ctx.db, ctx, {
    action: 'mcp.proposal.apply',
    targetType: 'mcpProposal',
    targetId: proposal.id,
    details: { ...auditDetails(proposal, clientName, principal.apiKeyId), approvedBy: reviewerOf(approver), approval },
  });
  return { status: 'applied' as const, proposalId: proposal.id, tool: proposal.tool, summary: proposal.summary, result: result.body ?? null };
}

/** AGENT-7, AGENT-10: who applied (approved) or rejected a proposal. */
const reviewerOf = (principal: Principal) => ({ userId: principal.userId, username: principal.username, apiKeyId: principal.apiKeyId });

/** AGENT-7: who proposed (key, client) and who applied or rejected (key, client), what, on which boards. */
function auditDetails(proposal: Proposal, clientName: string | null, apiKeyId: string | null) {
  return {
    tool: proposal.tool,
    operationId: proposal.operationId,
    summary: proposal.summary,
    boards: proposal.boards.map(({ boardId, name, version }) => ({ boardId, name, version })),
    proposedBy: { apiKeyId: proposal.apiKeyId, client: proposal.clientName ?? (proposal.apiKeyId ? `apiKey:${proposal.apiKeyId}` : null) },
    client: clientName ?? (apiKeyId ? `apiKey:${apiKeyId}` : null),
  };
}

/**
 * AGENT-6, AGENT-11: drops a proposal with its audit entry in one transaction: the caller's own (reject_proposal), or
 * one the caller may review (`reviewed`, the rejection on the page or over REST).
 */
export async function rejectProposal(ctx: RequestContext, id: string, clientName: string | null, reviewed = false) {
  const principal = requirePrincipal(ctx);
  const rejected = await audited(
    ctx,
    (taken: Proposal | null) =>
      taken
        ? {
            action: 'mcp.proposal.reject',
            targetType: 'mcpProposal',
            targetId: taken.id,
            details: { ...auditDetails(taken, clientName, principal.apiKeyId), rejectedBy: reviewerOf(principal) },
          }
        : null,
    (trx) => takeProposal(trx, id, reviewed ? null : principal.userId),
  );
  if (!rejected) throw proposalNotFound();
  return { status: 'rejected' as const, proposalId: rejected.id, tool: rejected.tool, summary: rejected.summary };
}

/**
 * AGENT-10: the board level a reviewer needs on every board a proposal touches: what its operation needs of its
 * caller over REST: full to delete, rename or change the visibility of a board and to replace boards by import or a
 * board set; modify for every other write.
 */
export function approvalLevel(operationId: OperationId): BoardPermissionLevel {
  const full: readonly string[] = ['deleteBoard', 'renameBoard', 'changeBoardVisibility', 'importBoard', 'applyBoardSet'];
  return full.includes(operationId) ? 'full' : 'modify';
}

/**
 * AGENT-10: who may read a proposal on its preview page and approve or reject it: its proposer's user, an admin, or
 * a caller holding approvalLevel on every board it touches (a proposal of no board: its proposer and admins only).
 */
export async function mayReview(db: Db, principal: Principal, proposal: Proposal): Promise<boolean> {
  // KEY-8: a board-scoped key sees no proposal touching a board beyond its boards, not even its own user's.
  if (proposal.boards.some((board) => !boardInKeyScope(principal, board.boardId))) return false;
  if (principal.userId === proposal.userId || principal.permissions.has('admin')) return true;
  if (proposal.boards.length === 0) return false;
  const level = approvalLevel(proposal.operationId);
  for (const board of proposal.boards) {
    const access = await loadBoardAccess(db, board.boardId, principal);
    if (!access || !allows(access, level)) return false;
  }
  return true;
}

/** AGENT-9: a live proposal the caller may review, else 404 `Proposal not found` (never revealing that it exists). */
export async function reviewableProposal(ctx: RequestContext, id: string): Promise<Proposal> {
  const proposal = await findProposal(ctx.db, id, null);
  if (!proposal || !(await mayReview(ctx.db, requirePrincipal(ctx), proposal))) throw proposalNotFound();
  return proposal;
}

/** AGENT-10: the caller a proposal was made as: its key (with the key's scopes), else its user; null when gone. */
async function proposerOf(db: Db, proposal: Proposal): Promise<Principal | null> {
  if (proposal.apiKeyId) return principalOfKey(db, proposal.apiKeyId);
  return loadPrincipal(db, proposal.userId, { authMethod: 'session', apiKeyId: null, scopes: null });
}

/**
 * AGENT-10: a person approves a proposal: it must be one they may review; it is written exactly as apply_proposal
 * writes it (applyTaken), as the key that proposed it, with the approver in its audit entry. A proposal whose key was
 * revoked or has expired, or whose user is gone, cannot be approved (404, the proposal stays until it expires).
 */
export async function approveProposal(ctx: RequestContext, tools: readonly Tool[], id: string) {
  const approver = requirePrincipal(ctx);
  const found = await reviewableProposal(ctx, id);
  const proposer = await proposerOf(ctx.db, found);
  if (!proposer) throw proposalNotFound();
  const acting: RequestContext = { ...ctx, principal: proposer, invoke: (operationId, input) => ctx.invoke(operationId, { ...input, as: proposer }) };
  return applyTaken(acting, tools, await takeProposal(ctx.db, id, null), found.clientName, approver, 'review');
}

/** AGENT-11: a person rejects a proposal they may review. */
export async function rejectReviewedProposal(ctx: RequestContext, id: string) {
  await reviewableProposal(ctx, id);
  return rejectProposal(ctx, id, null, true);
}
