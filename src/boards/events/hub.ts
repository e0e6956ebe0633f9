/**
 * The change feed of an instance (EVENT-1..6): open event streams by board, fed from history whenever the database
 * signals a change of the board (listener.ts). Events are read from history, never from the signal, so a lost
 * signal loses nothing; each stream's caller is authenticated and checked for view access again before every
 * delivery and on every heartbeat, so a caller who loses access gets no further events.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { metrics } from '../../observability/metrics';
import type { Logger } from 'pino';
import { ApiError } from '../../core/errors';
import { rateLimitHeaders } from '../../core/rateLimit';
import type { Db } from '../../db/database';
import { newId } from '../../db/ids';
import { authenticate } from '../../identity/authenticate';
import type { Principal } from '../../identity/principal';
import { allows, loadBoardAccess } from '../access';
import { entryAsSeenBy, HistoryEntry, toHistoryEntry } from '../history/history';
import { entriesAfter, latestRevision } from '../history/store';
import type { BoardChangeSignals } from './listener';
import { Board, EventStreamLease } from '../../db/models';

/** EVENT-5: the 429 of one event stream more than a caller may hold. */
export const tooManyStreams = (streamsPerCaller: number, retryAfterSeconds: number) =>
  new ApiError(
    'TOO_MANY_REQUESTS',
    `Too many open event streams: at most ${streamsPerCaller} per caller`,
    {},
    rateLimitHeaders({ policy: 'event-streams-per-caller', quota: streamsPerCaller, retryAfterSeconds }),
  );

export interface EventLimits {
  heartbeatMs: number;
  streamsPerCaller: number;
  /** Bytes a stream may have unsent before its consumer counts as not reading and is dropped. */
  maxBufferedBytes: number;
}

/** The most entries one delivery sends; a stream further behind catches up over several deliveries. */
const batchSize = 200;

interface Stream {
  boardId: string;
  res: ServerResponse;
  /** The request's credentials, authenticated again before every delivery. */
  headers: IncomingHttpHeaders;
  callerKey: string;
  /** The caller at the stream's start (its credentials do not change): what it is shown of actors (PRIV-2). */
  principal: Principal | null;
  /** Streams with the same credentials on the same board share one access check per delivery and heartbeat. */
  accessKey: string;
  lastRevision: number;
}

/**
 * A history entry ready to send: its event encoded once for all the streams that see it alike (PRIV-2: signed-in
 * callers see the actor's ids, anonymous ones its name only), not once per stream.
 */
interface OutgoingEntry {
  revision: number;
  /** When the entry was written (ms since the epoch), for the delivery lag (METRIC-3). */
  at: number;
  signedIn: Buffer;
  anonymous: Buffer;
}

const outgoing = (entry: HistoryEntry): OutgoingEntry => ({
  revision: entry.revision,
  at: new Date(entry.at).getTime(),
  signedIn: Buffer.from(changeEvent(entry)),
  anonymous: Buffer.from(changeEvent(entryAsSeenBy(entry, null))),
});

/** The event of one history entry (EVENT-1): `id` its revision, data what the entry says. */
export function changeEvent(entry: HistoryEntry): string {
  const { revision, version, operation, actor, at, summary } = entry;
  return `id: ${revision}\nevent: change\ndata: ${JSON.stringify({ revision, version, operation, actor, at, summary })}\n\n`;
}

/** The comment sent on every heartbeat (EVENT-1). */
const heartbeat = Buffer.from(': heartbeat\n\n');

/** `work` once for each distinct key, all at once: the answers by key. */
async function onceEach<K, V>(keys: Iterable<K>, work: (key: K) => Promise<V>): Promise<Map<K, V>> {
  const distinct = [...new Set(keys)];
  const answers = await Promise.all(distinct.map(work));
  return new Map(distinct.map((key, i) => [key, answers[i]]));
}

const streamHeaders = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** What authenticates a request: its API key (either header) and its session cookie. */
const credentialsOf = (headers: IncomingHttpHeaders) => JSON.stringify([headers.apikey ?? null, headers.authorization ?? null, headers.cookie ?? null]);

export class BoardEventHub {
  private readonly streams = new Map<string, Set<Stream>>();
  private readonly perCaller = new Map<string, number>();
  /** Boards being delivered, and whether another signal came meanwhile. */
  private readonly delivering = new Map<string, boolean>();
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;
  /** A heartbeat's access checks are under way (a slow database must not pile them up). */
  private beating = false;
  /** This process, as the holder of its streams' leases (EVENT-5). */
  private readonly holder = newId();
  /** How long a lease lives without its holder's heartbeat: three heartbeats, and never under 30 seconds. */
  private readonly leaseSeconds: number;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly signals: BoardChangeSignals,
    private readonly limits: EventLimits,
  ) {
    signals.onChange((boardId) => (boardId === null ? this.streams.forEach((_s, id) => this.deliver(id)) : this.deliver(boardId)));
    this.leaseSeconds = Math.max(30, (3 * limits.heartbeatMs) / 1000);
    this.heartbeat = setInterval(() => this.beat(), limits.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * EVENT-5: one more stream for this caller, or 429 when it holds as many as allowed open on all instances. The
   * streams are counted in the database (a lease per stream, renewed on this process's heartbeat), under a lock on
   * the caller, so that instances behind one load balancer share the limit and two opens at once cannot both take
   * the last place. The returned function gives the place back.
   */
  async reserve(callerKey: string): Promise<() => void> {
    if (this.closed) throw new ApiError('SERVICE_UNAVAILABLE', 'Shutting down');
    const id = newId();
    const taken = await this.db.transaction(async (trx) => {
      await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('tessera.event-streams:' || ?))`, [callerKey]);
      await EventStreamLease.query(trx).where({ callerKey }).andWhere('expiresAt', '<', trx.fn.now()).delete();
      const [{ open }] = await EventStreamLease.query(trx).where({ callerKey }).count({ open: '*' }).castTo<{ open: string | number }[]>();
      if (Number(open) >= this.limits.streamsPerCaller) return false;
      await EventStreamLease.query(trx).insert({ id, callerKey, holder: this.holder, expiresAt: trx.raw(`now() + make_interval(secs => ?)`, [this.leaseSeconds]) });
      return true;
    });
    if (!taken) {
      // RATE-1: a stream whose client went away is found at the next heartbeat at the latest, so that is when a slot
      // may be free again.
      const retryAfterSeconds = this.limits.heartbeatMs / 1000;
      throw tooManyStreams(this.limits.streamsPerCaller, retryAfterSeconds);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // A lease that cannot be removed now expires on its own.
      EventStreamLease.query(this.db)
        .deleteById(id)
        .catch((error: unknown) => this.logger.warn({ err: error }, 'event stream lease not removed; it expires on its own'));
    };
  }

  /**
   * Starts the stream on `res` (EVENT-1, EVENT-3): from `lastEventId` on when the client resumes (the entries it
   * missed are sent at once, or `reset` when history no longer has them), else from now.
   */
  async open(input: {
    boardId: string;
    res: ServerResponse;
    headers: IncomingHttpHeaders;
    principal: Principal | null;
    callerKey: string;
    lastEventId: number | null;
    release: () => void;
    /** A HEAD request: the headers only. */
    head?: boolean;
  }): Promise<void> {
    const { res } = input;
    if (input.head) {
      // EVENT-8: HEAD answers the stream's headers at once, with no body, and holds no stream slot.
      input.release();
      res.writeHead(200, streamHeaders);
      res.end();
      return;
    }
    const lastRevision = input.lastEventId ?? (await latestRevision(this.db, input.boardId)) ?? 0;
    res.writeHead(200, streamHeaders);
    res.write('retry: 2000\n\n');
    const stream: Stream = {
      boardId: input.boardId,
      res,
      headers: input.headers,
      callerKey: input.callerKey,
      principal: input.principal,
      accessKey: `${input.boardId}\n${credentialsOf(input.headers)}`,
      lastRevision,
    };
    let set = this.streams.get(stream.boardId);
    if (!set) this.streams.set(stream.boardId, (set = new Set()));
    set.add(stream);
    res.on('close', () => {
      input.release();
      const streams = this.streams.get(stream.boardId);
      streams?.delete(stream);
      if (streams?.size === 0) this.streams.delete(stream.boardId);
    });
    if (input.lastEventId !== null) this.deliver(stream.boardId);
  }

  /** Ends every stream (graceful shutdown) and stops listening. */
  /** METRIC-3: the streams open on this instance. */
  openStreams(): number {
    let count = 0;
    for (const streams of this.streams.values()) count += streams.size;
    return count;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const stream of this.allStreams()) stream.res.end();
    await EventStreamLease.query(this.db)
      .where({ holder: this.holder })
      .delete()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'event stream leases not removed at shutdown; they expire on their own'));
    await this.signals.close();
  }

  /**
   * EVENT-7: every heartbeat authenticates each stream's credentials again and checks its access (once per distinct
   * credentials and board), so a revoked or expired key, an ended session or lost access ends the stream within one
   * heartbeat even when the board does not change; the others get the heartbeat comment.
   */
  private beat(): void {
    if (this.beating) return;
    this.beating = true;
    const streams = this.allStreams();
    void Promise.all([streams.length === 0 ? undefined : this.renewLeases(), this.accessOf(streams)])
      .then(([, mayView]) => {
        for (const stream of streams) {
          if (mayView.get(stream.accessKey)) this.write(stream, heartbeat);
          else stream.res.end();
        }
      })
      .catch((error) => this.logger.warn({ err: error }, 'event stream heartbeat check failed; the next heartbeat retries'))
      .finally(() => (this.beating = false));
  }

  /** EVENT-5: this process still holds its streams' leases. */
  private async renewLeases(): Promise<void> {
    await EventStreamLease.query(this.db)
      .where({ holder: this.holder })
      .patch({ expiresAt: this.db.raw('now() + make_interval(secs => ?)', [this.leaseSeconds]) });
  }

  /**
   * mayView for each of the streams' access keys, asked once per distinct credentials and board (all the anonymous
   * streams of a public board, say), all at once.
   */
  private async accessOf(streams: Stream[]): Promise<Map<string, boolean>> {
    const askFor = new Map<string, Stream>();
    for (const stream of streams) if (!askFor.has(stream.accessKey)) askFor.set(stream.accessKey, stream);
    return onceEach(askFor.keys(), (key) => this.mayView(askFor.get(key)!));
  }

  private allStreams(): Stream[] {
    const all: Stream[] = [];
    for (const streams of this.streams.values()) all.push(...streams);
    return all;
  }

  /** EVENT-6: a consumer that does not read is dropped rather than buffered without end. */
  private write(stream: Stream, text: string | Buffer): boolean {
    if (stream.res.destroyed) return false;
    stream.res.write(text);
    if (stream.res.writableLength <= this.limits.maxBufferedBytes) return true;
    this.logger.info({ boardId: stream.boardId, buffered: stream.res.writableLength }, 'event stream dropped: its consumer does not read');
    stream.res.destroy();
    return false;
  }

  /** Sends the board's streams what history holds beyond what each has seen; one delivery per board at a time. */
  private deliver(boardId: string): void {
    if (!this.streams.has(boardId)) return;
    if (this.delivering.has(boardId)) {
      this.delivering.set(boardId, true);
      return;
    }
    this.delivering.set(boardId, false);
    void (async () => {
      try {
        do {
          this.delivering.set(boardId, false);
          await this.deliverOnce(boardId);
        } while (this.delivering.get(boardId) && this.streams.has(boardId));
      } catch (error) {
        this.logger.warn({ err: error, boardId }, 'event delivery failed; the next change retries');
      } finally {
        this.delivering.delete(boardId);
      }
    })();
  }

  private async deliverOnce(boardId: string): Promise<void> {
    const streams = [...(this.streams.get(boardId) ?? [])];
    if (streams.length === 0) return;
    // EVENT-4: a deleted board ends its streams with a `deleted` event.
    if (!(await Board.query(this.db).findById(boardId).select('id'))) {
      for (const stream of streams) {
        this.write(stream, `event: deleted\ndata: ${JSON.stringify({ boardId })}\n\n`);
        stream.res.end();
      }
      return;
    }
    // Streams usually stand at the same revision and share credentials: history is read once per distinct revision
    // and access checked once per distinct credentials, and then every stream is written to without waiting again.
    const entriesAfterRevision = await onceEach(
      streams.map((stream) => stream.lastRevision),
      async (after) => (await entriesAfter(this.db, boardId, after, batchSize)).map((row) => outgoing(toHistoryEntry(row))),
    );
    const waiting = streams.filter((stream) => entriesAfterRevision.get(stream.lastRevision)!.length > 0);
    const mayView = await this.accessOf(waiting);
    let latest: ReturnType<typeof latestRevision> | undefined;
    let behind = false;
    for (const stream of waiting) {
      if (!mayView.get(stream.accessKey)) {
        stream.res.end();
        continue;
      }
      const entries = entriesAfterRevision.get(stream.lastRevision)!;
      if (entries[0].revision > stream.lastRevision + 1 && stream.lastRevision > 0) {
        // EVENT-3: history no longer holds what the client missed; it must read the board again.
        const newest = (await (latest ??= latestRevision(this.db, boardId))) ?? entries[entries.length - 1].revision;
        stream.lastRevision = newest;
        this.write(stream, `id: ${newest}\nevent: reset\ndata: ${JSON.stringify({ revision: newest })}\n\n`);
        continue;
      }
      for (const entry of entries) {
        if (!this.write(stream, stream.principal ? entry.signedIn : entry.anonymous)) break;
        stream.lastRevision = entry.revision;
        // METRIC-3: events delivered, and the time from the entry (written on any instance) to this delivery.
        metrics.eventsDelivered.inc();
        metrics.eventDeliveryLag.observe(Math.max(0, (Date.now() - entry.at) / 1000));
      }
      if (entries.length === batchSize) behind = true;
    }
    if (behind) this.delivering.set(boardId, true);
  }

  /** EVENT-1: the stream's caller, authenticated again, may still view the board. */
  private async mayView(stream: Stream): Promise<boolean> {
    let principal: Principal | null;
    try {
      principal = await authenticate(this.db, stream.headers);
    } catch (error) {
      if (error instanceof ApiError) return false;
      throw error;
    }
    const access = await loadBoardAccess(this.db, stream.boardId, principal);
    return access !== null && allows(access, 'view');
  }
}
