/**
 * Provisioning from directories (PROV-1..7): each source directory is applied as one set (FLEET-2) once the instance
 * listens and again when its files change (debounced), as the provisioning user, under a PostgreSQL advisory lock so
 * that one instance applies at a time (the others wait, then find nothing to change). A directory with a file that
 * cannot be parsed or applied is not applied at all: its boards stay as the last good apply left them, and the problem
 * is logged and kept as the source's status (`GET /api/provisioning`), in the database, so every instance reports the
 * same. An entry the reader refuses (PROV-7: a link out of the directory, a FIFO or device, a file past the byte cap,
 * the time budget or the file count) is skipped, logged and reported; the rest of the directory applies, unpruned.
 */
import path from 'node:path';
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { FSWatcher } from 'chokidar';
import { ApiError } from '../../core/errors';
import { validateOperationInput } from '../../core/requestValidation';
import { loadPrincipal, type Principal } from '../../identity/principal';
import type { BoardFile } from '../files/file';
import { applySet } from './setApply';
import { enqueueWebhookEvent } from '../../webhooks/events';
import { metrics } from '../../observability/metrics';
import type { SetPlan } from './setPlan';
import { FileProblem, ProvisioningSource, readSourceFiles, type ReadLimits } from './provisioningSources';
import type { DiscoveryReader } from '../../discover/sources';
import type { DiscoverResult } from '../../discover/docker';
import { ProvisionedBoard, ProvisioningSource as ProvisioningSourceRow, User } from '../../db/models';

/** PROV-6: the advisory lock every instance's provisioning takes in its transaction. */
const provisioningLockKey = 7_464_791_301;

export interface SourceStatus {
  managedBy: string;
  path: string;
  prune: boolean;
  allowApiUpdates: boolean;
  ok: boolean;
  checkedAt: string;
  /** When the directory was last applied without a problem. */
  appliedAt: string | null;
  boards: number;
  summary: SetPlan['summary'] | null;
  problems: FileProblem[];
  /** PROV-7: the entries the last check refused to read (skipped; the rest of the directory applied, unpruned). */
  refused: FileProblem[];
  /** DISC-30: what the source is: a directory, or a discovery source. */
  kind: 'directory' | 'docker' | 'kubernetes';
  /** DISC-35: the last problem that kept the source from being applied, kept after later successes. */
  lastError: { message: string; at: string } | null;
}

/** What one check of a source read: a directory's files (PROV-7) or a discovery source's boards (DISC-31). */
export interface SourceRead {
  /** Each file: where it was read (problems name it), its name in the source (PROV-5: recorded), its content. */
  files: { file: string; name?: string; content: unknown }[];
  problems: FileProblem[];
  refused: FileProblem[];
  /** DISC-34: the message the history entries of the apply keep (FLEET-8's origin message). */
  message?: string | null;
}

async function saveStatus(q: Knex, status: SourceStatus): Promise<void> {
  await ProvisioningSourceRow.query(q).insert({ source: status.managedBy, status: JSON.stringify(status) }).onConflict('source').merge();
}

/** PROV-3: every source's status, as the last apply on any instance left it. */
export async function provisioningStatus(db: Knex): Promise<SourceStatus[]> {
  const rows = await ProvisioningSourceRow.query(db).orderBy('source').select('status').castTo<{ status: SourceStatus | string }[]>();
  // A status saved before PROV-7 has no `refused`; one saved before DISC-30 no `kind` and no `lastError`.
  return rows.map((row) => ({ refused: [], kind: 'directory', lastError: null, ...(typeof row.status === 'string' ? JSON.parse(row.status) : row.status) }));
}

export async function provisioningPrincipal(db: Knex, username: string): Promise<Principal | null> {
  const user = await User.query(db).where({ username }).select('id').first().castTo<{ id: string } | undefined>();
  return user ? loadPrincipal(db, user.id, { authMethod: 'session', apiKeyId: null, scopes: null }) : null;
}

/** PROV-3: a file's content checked as the import checks a body (the board file schema), or its problem. */
function checkedFile(file: string, content: unknown): { file: string; content: BoardFile } | { problem: FileProblem } {
  try {
    validateOperationInput('importBoard', { body: content, query: {} });
    return { file, content: content as BoardFile };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // ERR-6: the problems (one per problem, the relevant oneOf branch only) rather than Ajv's list.
    const issues = ((error.data.problems ?? error.data.issues) as { instancePath?: string; message?: string }[] | undefined) ?? [];
    const detail = issues.slice(0, 3).map((i) => `${(i.instancePath ?? '').replace(/^\/(requestBody|body)/, '') || '/'} ${i.message ?? ''}`.trim());
    return { problem: { file, line: null, message: [error.message, ...detail].join('; ') } };
  }
}

export interface ProvisionOptions {
  /** The provisioning user (PROVISIONING_USER): the actor of the audit entries (AUDIT-7). */
  username: string;
  historyLimit: number;
  logger: Logger;
  /** PROV-7: the file count, byte cap and time budget of reading a directory. */
  limits: ReadLimits;
}

/**
 * Applies one source (PROV-2, PROV-3, PROV-4, PROV-6): a directory read here, or what a discovery source read
 * (`read`, DISC-31); answers its status, counted by outcome (METRIC-7).
 */
export async function provisionSource(db: Knex, source: ProvisioningSource, options: ProvisionOptions, read?: SourceRead): Promise<SourceStatus> {
  try {
    const status = await provisionSourceOnce(db, source, options, read ?? (await readSourceFiles(source, options.limits)));
    metrics.provisioningApplies.inc({ source: source.managedBy, outcome: status.ok ? 'success' : 'failure' });
    return status;
  } catch (error) {
    metrics.provisioningApplies.inc({ source: source.managedBy, outcome: 'failure' });
    throw error;
  }
}

async function provisionSourceOnce(db: Knex, source: ProvisioningSource, options: ProvisionOptions, read: SourceRead): Promise<SourceStatus> {
  const previous = (await provisioningStatus(db)).find((s) => s.managedBy === source.managedBy);
  const base = {
    managedBy: source.managedBy,
    path: source.path,
    prune: source.prune,
    allowApiUpdates: source.allowApiUpdates,
    checkedAt: new Date().toISOString(),
    kind: source.discovery?.source ?? ('directory' as const),
    lastError: previous?.lastError ?? null,
  };
  // PROV-7: each refused entry is said once per check, and kept in the status.
  for (const entry of read.refused) options.logger.warn({ provisioning: source.managedBy, ...entry }, `provisioning: ${entry.message}; skipped, the rest of the directory applies`);
  const failed = async (problems: FileProblem[]): Promise<SourceStatus> => {
    const status: SourceStatus = {
      ...base,
      ok: false,
      appliedAt: previous?.appliedAt ?? null,
      boards: previous?.boards ?? 0,
      summary: null,
      problems,
      refused: read.refused,
      lastError: { message: problems[0].message, at: base.checkedAt },
    };
    for (const problem of problems) options.logger.warn({ provisioning: source.managedBy, ...problem }, `provisioning: ${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}; the last good state is kept`);
    // HOOK-9: the failure's event with its status, in one transaction.
    await db.transaction(async (trx) => {
      await saveStatus(trx, status);
      await enqueueWebhookEvent(trx, 'provisioning.failed', null, { managedBy: source.managedBy, problems });
    });
    return status;
  };

  const checked: (ReturnType<typeof checkedFile> & { name?: string })[] = [];
  for (const { file, name, content } of read.files) {
    // DB-4: a file at a time, the event loop serving requests between them.
    await yieldToRequests();
    checked.push({ ...checkedFile(file, content), name });
  }
  const problems = [...read.problems, ...checked.flatMap((c) => ('problem' in c ? [c.problem] : []))];
  if (problems.length > 0) return failed(problems);
  const files = checked.flatMap((c) => ('content' in c ? [c] : []));
  const principal = await provisioningPrincipal(db, options.username);
  if (!principal) return failed([{ file: source.path, line: null, message: `No user ${options.username} to provision as (PROVISIONING_USER)` }]);

  // PROV-5, DRIFT-1: a board's file is recorded by its name in the directory (writers read it; the path is the admin's).
  const fileOf = new Map(files.map((f) => [f.content.name.toLowerCase(), f.name ?? path.relative(source.path, f.file)]));
  try {
    const plan = await applySet(db, {
      principal,
      // AUDIT-7: an entry for each apply that changes something, by the provisioning user, surface `provisioning`.
      audit: {
        source: { db, logger: options.logger, requestId: null, clientIp: null, surface: 'provisioning', principal: { userId: principal.userId, apiKeyId: null, username: principal.username } },
        action: 'provisioning.apply',
        onlyWhenChanged: true,
      },
      managedBy: source.managedBy,
      // FLEET-13: a source's label is provisioning's.
      provisioning: true,
      ignoreSource: true,
      files: files.map((f) => f.content),
      dryRun: false,
      // PROV-7: a refused entry may be the file of a board this source wrote: nothing is pruned while one is refused.
      prune: source.prune && read.refused.length === 0,
      // DISC-34: a discovery apply's entries say what happened.
      history: { operation: 'provisioning', limit: options.historyLimit, origin: { managedBy: source.managedBy, commit: null, message: read.message ?? null } },
      hooks: {
        async before(trx) {
          // PROV-6: one instance at a time; PROV-5: this transaction's own writes pass the trigger.
          await trx.raw('SELECT pg_advisory_xact_lock(?)', [provisioningLockKey]);
          await trx.raw(`SELECT set_config('tessera.provisioning', 'on', true)`);
        },
        async after(trx, applied, plan) {
          const ids = applied.map((a) => a.boardId);
          // PROV-7: while an entry is refused, the boards not applied keep their record as they keep their place.
          if (read.refused.length === 0) await ProvisionedBoard.query(trx).where({ source: source.managedBy }).whereNotIn('boardId', ids.length > 0 ? ids : ['']).delete();
          for (const { file, boardId } of applied) {
            await ProvisionedBoard.query(trx)
              .insert({ boardId, source: source.managedBy, file: fileOf.get(file.name.toLowerCase())!, allowApiUpdates: source.allowApiUpdates, drifted: false })
              .onConflict('boardId')
              .merge();
          }
          await saveStatus(trx, { ...base, ok: true, appliedAt: new Date().toISOString(), boards: applied.length, summary: plan.summary, problems: [], refused: read.refused });
        },
      },
    });
    if (plan.summary.changed) options.logger.info({ provisioning: source.managedBy, summary: plan.summary }, `provisioning: applied ${source.path}`);
    return (await provisioningStatus(db)).find((s) => s.managedBy === source.managedBy)!;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const board = typeof error.data.board === 'string' ? error.data.board : undefined;
    return failed([{ file: (board && fileOf.get(board.toLowerCase())) ?? source.path, line: null, message: error.message }]);
  }
}

/**
 * PROV-2: applies every source once the instance listens, then each again when its files change, DEBOUNCE ms after the
 * last change. `start` answers at once: the first applies run in the background (PROV-7: start-up never waits on a
 * directory); `started` settles when they have run and the watcher is ready.
 *
 * DISC-32, DISC-33: a discovery source is read and applied the same way: first its event stream is opened (where the
 * kind has one), then it is applied once, then again DEBOUNCE ms after the last event (a burst is one apply) and every
 * `interval`. Its watch and its timer stop with the provisioner.
 */
export class Provisioner {
  private watcher: FSWatcher | null = null;
  private timers = new Map<string, NodeJS.Timeout>();
  private intervals: NodeJS.Timeout[] = [];
  private streams: { stop(): void }[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  /** The sources queued and not yet being read: another trigger meanwhile adds nothing (their read is still to come). */
  private waiting = new Set<string>();
  /** DISC-31: the reader of each discovery source, by managedBy. */
  private readers = new Map<string, DiscoveryReader>();
  /** DISC-34: the changes each discovery source reported since its last apply, and what its last good read found (wording only). */
  private events = new Map<string, string[]>();
  private lastRead = new Map<string, DiscoverResult>();
  private describeChanges: typeof import('../../discover/sources').discoveryMessage | null = null;
  private stopped = false;
  /** Settles once every source was applied once and the watcher is ready (or the provisioner stopped first). */
  started: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Knex,
    private readonly sources: ProvisioningSource[],
    private readonly options: ProvisionOptions & { debounceMs: number; discoveryBounds?: { timeoutMs: number; maxBytes: number } },
  ) {
    if (sources.some((source) => source.discovery)) {
      // The discovery readers (and the converters they map with) are loaded only by an instance that has a discovery source.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { discoveryReader, discoveryReadBounds, discoveryMessage } = require('../../discover/sources') as typeof import('../../discover/sources');
      this.describeChanges = discoveryMessage;
      for (const source of sources) {
        if (source.discovery) this.readers.set(source.managedBy, discoveryReader(source.discovery, { managedBy: source.managedBy, ...(options.discoveryBounds ?? discoveryReadBounds) }));
      }
    }
  }

  /** One apply at a time in this instance (the advisory lock orders instances); a source already waiting is not queued twice. */
  private enqueue(source: ProvisioningSource): Promise<unknown> {
    if (this.waiting.has(source.managedBy)) return this.queue;
    this.waiting.add(source.managedBy);
    this.queue = this.queue
      .then(() => {
        this.waiting.delete(source.managedBy);
        if (this.stopped) return undefined;
        return source.discovery ? this.discover(source) : provisionSource(this.db, source, this.options);
      })
      .catch((error) => this.options.logger.error({ err: error, provisioning: source.managedBy }, 'provisioning failed'));
    return this.queue;
  }

  /**
   * DISC-31, DISC-34, DISC-35: reads a discovery source and applies what it found; a source that cannot be read is
   * a problem of its status (the boards stay as the last good apply left them: nothing is pruned).
   */
  private async discover(source: ProvisioningSource): Promise<SourceStatus> {
    const reader = this.readers.get(source.managedBy)!;
    const events = this.events.get(source.managedBy) ?? [];
    this.events.delete(source.managedBy);
    let result: DiscoverResult;
    try {
      result = await reader.read();
    } catch (error) {
      return provisionSource(this.db, source, this.options, {
        files: [],
        problems: [{ file: reader.where, line: null, message: `${(error as Error).message}: not read, the last good state is kept` }],
        refused: [],
      });
    }
    const message = this.describeChanges!(reader.where, events, this.lastRead.get(source.managedBy) ?? null, result);
    const files = result.boards.map((content, index) => ({ file: `${reader.where} ${result.report.boards[index].file}`, name: result.report.boards[index].file, content }));
    const status = await provisionSource(this.db, source, this.options, { files, problems: [], refused: [], message });
    if (status.ok) this.lastRead.set(source.managedBy, result);
    return status;
  }

  /** PROV-2, DISC-32: the source is applied DEBOUNCE ms after the last of a burst of changes. */
  private schedule(source: ProvisioningSource): void {
    if (this.stopped) return;
    clearTimeout(this.timers.get(source.managedBy));
    this.timers.set(source.managedBy, setTimeout(() => void this.enqueue(source), this.options.debounceMs));
  }

  start(): void {
    this.started = this.run().catch((error) => this.options.logger.error({ err: error }, 'provisioning: the directories are not watched'));
  }

  private async run(): Promise<void> {
    const discovered = this.sources.filter((s) => s.discovery);
    const directories = this.sources.filter((s) => !s.discovery);
    // DISC-32: the event streams open before the first read, so that no change between the two is missed.
    const opened: Promise<void>[] = [];
    for (const source of discovered) {
      const reader = this.readers.get(source.managedBy)!;
      if (!reader.watch) continue;
      const stream = reader.watch(
        (change) => {
          if (this.stopped) return;
          this.events.set(source.managedBy, [...(this.events.get(source.managedBy) ?? []), change].slice(-100));
          this.schedule(source);
        },
        (error) => this.options.logger.warn({ provisioning: source.managedBy, err: { message: error.message } }, `discovery: ${error.message}; reconnecting (the interval still re-reads)`),
      );
      this.streams.push(stream);
      opened.push(stream.ready);
    }
    await Promise.all(opened);
    for (const source of this.sources) await this.enqueue(source);
    if (this.stopped) return;
    // DISC-33: every discovery source is read again every interval, events or not.
    for (const source of discovered) {
      const timer = setInterval(() => void this.enqueue(source), source.discovery!.intervalMs);
      timer.unref();
      this.intervals.push(timer);
    }
    if (directories.length === 0) return;
    // chokidar is loaded only by an instance that provisions (the Provisioner exists only then).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { watch } = require('chokidar') as typeof import('chokidar');
    const watcher = watch(
      directories.map((s) => s.path),
      { ignoreInitial: true, depth: 0 },
    );
    this.watcher = watcher;
    watcher.on('all', (_event, changed) => {
      const source = directories.find((s) => changed === s.path || changed.startsWith(`${s.path}/`));
      if (source) this.schedule(source);
    });
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // DISC-32: the event streams end now (a stream never ends by itself).
    for (const stream of this.streams) stream.stop();
    await this.started;
    for (const stream of this.streams) stream.stop();
    for (const timer of this.intervals) clearInterval(timer);
    for (const timer of this.timers.values()) clearTimeout(timer);
    await this.watcher?.close();
    await this.queue;
  }
}
