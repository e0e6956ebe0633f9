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
import { metrics } from '../../observability/metrics';
import type { SetPlan } from './setPlan';
import { FileProblem, ProvisioningSource, readSourceFiles, type ReadLimits } from './provisioningSources';
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
}

async function saveStatus(q: Knex, status: SourceStatus): Promise<void> {
  await ProvisioningSourceRow.query(q).insert({ source: status.managedBy, status: JSON.stringify(status) }).onConflict('source').merge();
}

/** PROV-3: every source's status, as the last apply on any instance left it. */
export async function provisioningStatus(db: Knex): Promise<SourceStatus[]> {
  const rows = await ProvisioningSourceRow.query(db).orderBy('source').select('status').castTo<{ status: SourceStatus | string }[]>();
  // A status saved before PROV-7 has no `refused`.
  return rows.map((row) => ({ refused: [], ...(typeof row.status === 'string' ? JSON.parse(row.status) : row.status) }));
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

/** Applies one source directory (PROV-2, PROV-3, PROV-4, PROV-6); answers its status, counted by outcome (METRIC-7). */
export async function provisionSource(db: Knex, source: ProvisioningSource, options: ProvisionOptions): Promise<SourceStatus> {
  try {
    const status = await provisionSourceOnce(db, source, options);
    metrics.provisioningApplies.inc({ source: source.managedBy, outcome: status.ok ? 'success' : 'failure' });
    return status;
  } catch (error) {
    metrics.provisioningApplies.inc({ source: source.managedBy, outcome: 'failure' });
    throw error;
  }
}

async function provisionSourceOnce(db: Knex, source: ProvisioningSource, options: ProvisionOptions): Promise<SourceStatus> {
  const previous = (await provisioningStatus(db)).find((s) => s.managedBy === source.managedBy);
  const base = { managedBy: source.managedBy, path: source.path, prune: source.prune, allowApiUpdates: source.allowApiUpdates, checkedAt: new Date().toISOString() };
  const read = await readSourceFiles(source, options.limits);
  // PROV-7: each refused entry is said once per check, and kept in the status.
  for (const entry of read.refused) options.logger.warn({ provisioning: source.managedBy, ...entry }, `provisioning: ${entry.message}; skipped, the rest of the directory applies`);
  const failed = async (problems: FileProblem[]): Promise<SourceStatus> => {
    const status: SourceStatus = { ...base, ok: false, appliedAt: previous?.appliedAt ?? null, boards: previous?.boards ?? 0, summary: null, problems, refused: read.refused };
    for (const problem of problems) options.logger.warn({ provisioning: source.managedBy, ...problem }, `provisioning: ${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}; the last good state is kept`);
    await saveStatus(db, status);
    return status;
  };

  const checked: ReturnType<typeof checkedFile>[] = [];
  for (const { file, content } of read.files) {
    // DB-4: a file at a time, the event loop serving requests between them.
    await yieldToRequests();
    checked.push(checkedFile(file, content));
  }
  const problems = [...read.problems, ...checked.flatMap((c) => ('problem' in c ? [c.problem] : []))];
  if (problems.length > 0) return failed(problems);
  const files = checked.flatMap((c) => ('content' in c ? [c] : []));
  const principal = await provisioningPrincipal(db, options.username);
  if (!principal) return failed([{ file: source.path, line: null, message: `No user ${options.username} to provision as (PROVISIONING_USER)` }]);

  // PROV-5, DRIFT-1: a board's file is recorded by its name in the directory (writers read it; the path is the admin's).
  const fileOf = new Map(files.map((f) => [f.content.name.toLowerCase(), path.relative(source.path, f.file)]));
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
      history: { operation: 'provisioning', limit: options.historyLimit, origin: { managedBy: source.managedBy, commit: null, message: null } },
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
 */
export class Provisioner {
  private watcher: FSWatcher | null = null;
  private timers = new Map<string, NodeJS.Timeout>();
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** Settles once every source was applied once and the watcher is ready (or the provisioner stopped first). */
  started: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Knex,
    private readonly sources: ProvisioningSource[],
    private readonly options: ProvisionOptions & { debounceMs: number },
  ) {}

  /** One apply at a time in this instance (the advisory lock orders instances). */
  private enqueue(source: ProvisioningSource): Promise<unknown> {
    this.queue = this.queue
      .then(() => (this.stopped ? undefined : provisionSource(this.db, source, this.options)))
      .catch((error) => this.options.logger.error({ err: error, provisioning: source.managedBy }, 'provisioning failed'));
    return this.queue;
  }

  start(): void {
    this.started = this.run().catch((error) => this.options.logger.error({ err: error }, 'provisioning: the directories are not watched'));
  }

  private async run(): Promise<void> {
    for (const source of this.sources) await this.enqueue(source);
    if (this.stopped) return;
    // chokidar is loaded only by an instance that provisions (the Provisioner exists only then).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { watch } = require('chokidar') as typeof import('chokidar');
    const watcher = watch(this.sources.map((s) => s.path), { ignoreInitial: true, depth: 0 });
    this.watcher = watcher;
    watcher.on('all', (_event, changed) => {
      const source = this.sources.find((s) => changed === s.path || changed.startsWith(`${s.path}/`));
      if (!source || this.stopped) return;
      clearTimeout(this.timers.get(source.managedBy));
      this.timers.set(source.managedBy, setTimeout(() => void this.enqueue(source), this.options.debounceMs));
    });
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.started;
    for (const timer of this.timers.values()) clearTimeout(timer);
    await this.watcher?.close();
    await this.queue;
  }
}
