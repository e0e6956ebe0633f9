/**
 * MCP sessions in the database (AGENT-14..AGENT-16): what a client declared on `initialize` (its name, its
 * capabilities) kept under the `Mcp-Session-Id` the server hands out, so that whichever instance serves a later request
 * of the session knows it; and the answers to elicitations, posted by the client to any instance and read by the
 * instance whose tool call waits for them. Every function is one statement.
 */
import type { Db } from '../db/database';
import { newId } from '../db/ids';
import { McpSession } from '../db/models';

/** AGENT-14: a session lasts a day from its `initialize`; a client whose session is gone is served as a stateless one. */
export const mcpSessionTtlSeconds = 24 * 3600;

export interface McpSessionFacts {
  id: string;
  clientName: string | null;
  capabilities: Record<string, unknown>;
}

/** AGENT-14: a new session of the key (expired sessions are deleted first, in the same statement's transaction). */
export async function openSession(db: Db, apiKeyId: string, clientName: string | null, capabilities: Record<string, unknown>): Promise<string> {
  const id = newId();
  await db.transaction(async (trx) => {
    await McpSession.query(trx).delete().where('expiresAt', '<=', trx.raw('now()'));
    await McpSession.query(trx).insert({
      id,
      apiKeyId,
      clientName,
      capabilities: JSON.stringify(capabilities),
      expiresAt: trx.raw('now() + make_interval(secs => ?)', [mcpSessionTtlSeconds]),
    } as never);
  });
  return id;
}

/** AGENT-14: the live session of this id and key, else null (another key's session is none of this caller's). */
export async function findSession(db: Db, id: string, apiKeyId: string): Promise<McpSessionFacts | null> {
  const row = await McpSession.query(db).findById(id).where({ apiKeyId }).where('expiresAt', '>', db.raw('now()')).select('id', 'clientName', 'capabilities');
  return row ? { id: row.id, clientName: row.clientName, capabilities: (row.capabilities ?? {}) as Record<string, unknown> } : null;
}

/** AGENT-16: marks an elicitation as sent and awaiting its answer (a JSON null under its id). */
export async function awaitAnswer(db: Db, sessionId: string, elicitationId: string): Promise<void> {
  await McpSession.query(db)
    .findById(sessionId)
    .patch({ answers: db.raw("answers || jsonb_build_object(?::text, 'null'::jsonb)", [elicitationId]) } as never);
}

/**
 * AGENT-16: stores the client's answer to an elicitation of its session that is awaiting one; false when there is no
 * such elicitation (another session's, answered already, or given up).
 */
export async function storeAnswer(db: Db, sessionId: string, apiKeyId: string, elicitationId: string, message: unknown): Promise<boolean> {
  const updated = await McpSession.query(db)
    .findById(sessionId)
    .where({ apiKeyId })
    .whereRaw("(answers -> ?::text) = 'null'::jsonb", [elicitationId])
    .patch({ answers: db.raw('jsonb_set(answers, array[?::text], ?::jsonb)', [elicitationId, JSON.stringify(message)]) } as never);
  return updated > 0;
}

/**
 * AGENT-16: the answer to an elicitation once the client posted it (taken out of the session: read once), `undefined`
 * while it is awaited; `null` when it is no longer awaited (the session is gone, or the elicitation was given up).
 */
export async function takeAnswer(db: Db, sessionId: string, elicitationId: string): Promise<unknown> {
  const row = await McpSession.query(db)
    .findById(sessionId)
    .select(db.raw('answers -> ?::text as answer, jsonb_typeof(answers -> ?::text) as kind', [elicitationId, elicitationId]))
    .castTo<{ answer: unknown; kind: string | null } | undefined>();
  if (!row || row.kind === null) return null;
  if (row.kind === 'null') return undefined;
  await forgetAnswer(db, sessionId, elicitationId);
  return row.answer;
}

/** AGENT-16: the elicitation is no longer awaited (answered, or given up). */
export async function forgetAnswer(db: Db, sessionId: string, elicitationId: string): Promise<void> {
  await McpSession.query(db)
    .findById(sessionId)
    .patch({ answers: db.raw('answers - ?::text', [elicitationId]) } as never);
}
