import { BaseModel, col, rowSchema } from './BaseModel';

/** One board a proposal touches, as it was when the proposal was made (AGENT-4). */
export interface ProposedBoard {
  boardId: string;
  name: string;
  version: number;
  etag: string | null;
}

/** `mcp_proposals`: a write an MCP tool proposed instead of making it, until applied, rejected or expired (AGENT-4, migration 0021). */
export class McpProposal extends BaseModel {
  static override tableName = 'mcp_proposals';
  declare id: string;
  declare userId: string;
  declare apiKeyId: string | null;
  declare clientName: string | null;
  declare tool: string;
  declare operationId: string;
  declare input: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };
  declare plan: unknown;
  declare summary: string;
  declare boards: ProposedBoard[];
  declare createdAt: Date;
  declare expiresAt: Date;

  static override jsonSchema = rowSchema(['id', 'userId', 'tool', 'operationId', 'summary'], {
    id: col.text,
    userId: col.text,
    apiKeyId: col.nullableText,
    clientName: col.nullableText,
    tool: col.text,
    operationId: col.text,
    input: {},
    plan: {},
    summary: col.text,
    boards: {},
    createdAt: col.timestamp,
    expiresAt: col.timestamp,
  });
}
