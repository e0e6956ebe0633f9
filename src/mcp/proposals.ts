/**
 * The proposals store (AGENT-4..7): one row per write an MCP tool proposed, in the database so that any instance
 * applies or rejects it; expiry by the database's clock. Each function is one statement (one transaction).
 */
import type { Db } from '../db/database';
import { newId } from '../db/ids';
import { McpProposal, ProposedBoard } from '../db/models/McpProposal';
import type { InvokeInput, OperationId } from '../core/operation';

export interface NewProposal {
  userId: string;
  apiKeyId: string | null;
  clientName: string | null;
  tool: string;
  operationId: OperationId;
  input: InvokeInput;
  plan: unknown;
  summary: string;
  boards: ProposedBoard[];
}

export interface Proposal extends NewProposal {
  id: string;
  createdAt: string;
  expiresAt: string;
}

const iso = (value: Date | string) => new Date(value).toISOString();

function proposalOf(row: McpProposal): Proposal {
  return {
    id: row.id,
    userId: row.userId,
    apiKeyId: row.apiKeyId,
    clientName: row.clientName,
    tool: row.tool,
    operationId: row.operationId as OperationId,
    input: row.input,
    plan: row.plan ?? null,
    summary: row.summary,
    boards: row.boards,
    createdAt: iso(row.createdAt),
    expiresAt: iso(row.expiresAt),
  };
}

const columns = (proposal: NewProposal) => ({
  userId: proposal.userId,
  apiKeyId: proposal.apiKeyId,
  clientName: proposal.clientName,
  tool: proposal.tool,
  operationId: proposal.operationId,
  // jsonb columns travel as JSON text, as the other stores send them.
  input: JSON.stringify(proposal.input),
  plan: JSON.stringify(proposal.plan ?? null),
  summary: proposal.summary,
  boards: JSON.stringify(proposal.boards),
});

/** AGENT-4: stores a proposal expiring `ttlSeconds` from now (the database's now). */
export async function insertProposal(db: Db, proposal: NewProposal, ttlSeconds: number): Promise<Proposal> {
  const row = await McpProposal.query(db)
    .insert({ id: newId(), ...columns(proposal), expiresAt: db.raw('now() + make_interval(secs => ?)', [ttlSeconds]) } as never)
    .returning('*');
  return proposalOf(row as unknown as McpProposal);
}

/**
 * AGENT-4: a proposal of this user that has not expired, or null (another user's is not found either); `userId` null:
 * of any user (AGENT-9: the approver's read, which decides itself who may see it).
 */
export async function findProposal(db: Db, id: string, userId: string | null): Promise<Proposal | null> {
  const query = McpProposal.query(db).findById(id).where('expiresAt', '>', db.raw('now()'));
  const row = await (userId === null ? query : query.where({ userId }));
  return row ? proposalOf(row) : null;
}

/**
 * AGENT-5, AGENT-6: takes a live proposal of this user (`userId` null: of any user, AGENT-10) out of the table (so
 * that it is applied or rejected once, whichever instance asks first); null when there is none.
 */
export async function takeProposal(db: Db, id: string, userId: string | null): Promise<Proposal | null> {
  const query = McpProposal.query(db).delete().where({ id }).where('expiresAt', '>', db.raw('now()'));
  const rows = await (userId === null ? query : query.where({ userId })).returning('*');
  const row = (rows as unknown as McpProposal[])[0];
  return row ? proposalOf(row) : null;
}

/** AGENT-5: puts back a proposal whose apply failed for a reason that may pass (not a stale board), with its expiry. */
export async function restoreProposal(db: Db, proposal: Proposal): Promise<void> {
  await McpProposal.query(db).insert({ id: proposal.id, ...columns(proposal), createdAt: proposal.createdAt, expiresAt: proposal.expiresAt } as never);
}

/** AGENT-4: expired proposals are gone: deleted whenever a proposal is made. */
export async function deleteExpiredProposals(db: Db): Promise<number> {
  return McpProposal.query(db).delete().where('expiresAt', '<=', db.raw('now()'));
}
