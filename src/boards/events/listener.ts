/**
 * One listener per instance for the database's board change notifications (EVENT-2, migration 0007): on PostgreSQL a
 * dedicated connection running LISTEN, reconnected after an outage without a restart; on PGlite (one process) the
 * embedded database's own listener. Notifications carry ids only, and only for this instance's schema.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../db/database';

export const boardChangeChannel = 'tessera_board_changes';

export interface BoardChangeSignals {
  /** `boardId` changed; null after a reconnect, when any board may have changed unseen. */
  onChange(listener: (boardId: string | null) => void): void;
  close(): Promise<void>;
}

/** The schema the instance's tables live in, which the notification names before the board id. */
/**
 * The schema the notifications of this database name (the trigger sends `current_schema()`): asked of the database,
 * as the search path may come from knex's config or from the connection string (`options=-c search_path=…`).
 */
async function schemaOf(db: Db): Promise<string> {
  const { rows } = await db.raw<{ rows: { schema: string }[] }>('select current_schema() as schema');
  return rows[0].schema;
}

function boardIdOf(payload: string | undefined, schema: string): string | undefined {
  if (!payload) return undefined;
  const colon = payload.indexOf(':');
  return payload.slice(0, colon) === schema ? payload.slice(colon + 1) : undefined;
}

export async function listenForBoardChanges(db: Db, logger: Logger): Promise<BoardChangeSignals> {
  const listeners: ((boardId: string | null) => void)[] = [];
  const emit = (boardId: string | null) => listeners.forEach((listener) => listener(boardId));
  const schema = await schemaOf(db); // on PGlite, also its start
  const connection = (db.client.config as { connection?: { connectionString?: string } }).connection;
  const close = connection?.connectionString ? await listenOnPostgres(connection.connectionString, schema, emit, logger) : await listenOnPglite(db, schema, emit);
  return { onChange: (listener) => listeners.push(listener), close };
}

async function listenOnPglite(db: Db, schema: string, emit: (boardId: string | null) => void): Promise<() => Promise<void>> {
  const pglite = (db.client as unknown as { pglite: { listen(channel: string, cb: (payload: string) => void): Promise<() => Promise<void>> } }).pglite;
  const unlisten = await pglite.listen(boardChangeChannel, (payload) => {
    const boardId = boardIdOf(payload, schema);
    if (boardId) emit(boardId);
  });
  return async () => {
    await unlisten().catch(() => undefined);
  };
}

async function listenOnPostgres(connectionString: string, schema: string, emit: (boardId: string | null) => void, logger: Logger): Promise<() => Promise<void>> {
  // pg is loaded only for PostgreSQL (as in db/database.ts): a start on the embedded database does not load it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Client } = require('pg') as typeof import('pg');
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let delay = 250;

  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString, application_name: `tessera-listener:${schema}`.slice(0, 63) });
    next.on('notification', (message) => {
      const boardId = boardIdOf(message.payload, schema);
      if (boardId) emit(boardId);
    });
    next.on('error', (error) => {
      logger.warn({ err: error }, 'board change listener lost its connection; reconnecting');
      reconnect(next);
    });
    next.on('end', () => reconnect(next));
    await next.connect();
    await next.query(`LISTEN ${boardChangeChannel}`);
    client = next;
  };

  const reconnect = (lost: pg.Client) => {
    if (closed || client !== lost) return;
    client = null;
    void lost.end().catch(() => undefined);
    schedule();
  };

  const schedule = () => {
    if (closed) return;
    retry = setTimeout(() => {
      connect().then(
        () => {
          delay = 250;
          // What was committed while the connection was down is in history: every stream looks again.
          emit(null);
        },
        (error) => {
          logger.warn({ err: error, retryInMs: delay }, 'board change listener could not connect');
          delay = Math.min(delay * 2, 10_000);
          schedule();
        },
      );
    }, delay);
    retry.unref();
  };

  await connect();
  return async () => {
    closed = true;
    clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}
