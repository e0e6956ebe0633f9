import { BaseModel, col, rowSchema } from './BaseModel';

/**
 * `mcp_sessions`: an MCP client's session (AGENT-14, migration 0024): what it declared on `initialize`, so that any
 * instance serving a later request of the session knows it, and the answers to elicitations sent on one instance and
 * posted back to any (AGENT-16). Expires by the database's clock.
 */
export class McpSession extends BaseModel {
  static override tableName = 'mcp_sessions';
  declare id: string;
  declare apiKeyId: string;
  declare clientName: string | null;
  declare capabilities: Record<string, unknown>;
  declare answers: Record<string, unknown>;
  declare createdAt: Date;
  declare expiresAt: Date;

  static override jsonSchema = rowSchema(['id', 'apiKeyId'], {
    id: col.text,
    apiKeyId: col.text,
    clientName: col.nullableText,
    capabilities: {},
    answers: {},
    createdAt: col.timestamp,
    expiresAt: col.timestamp,
  });
}
