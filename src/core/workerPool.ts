/**
 * CPU-bound work off the event loop: a pool of worker threads running one plain-JavaScript source (it runs outside
 * any TypeScript loader), each doing one job at a time. Workers start on first use, never keep the process alive and
 * end after a while without work. A job given a time budget that runs out ends its worker (the only way to stop
 * synchronous code) and is rejected with a WorkerTimeout; the next job starts a fresh worker.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';

export class WorkerTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`worker job took longer than ${timeoutMs} ms`);
  }
}

interface Pending {
  job: unknown;
  timeoutMs?: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Leaves a core for the event loop; at least one worker. */
export const defaultPoolSize = Math.max(1, Math.min(4, os.availableParallelism() - 1));
const idleMs = 30_000;

class PoolWorker {
  private readonly worker: Worker;
  private current: Pending | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private budgetTimer: NodeJS.Timeout | null = null;

  constructor(
    source: string,
    private readonly name: string,
    private readonly onIdle: (worker: PoolWorker) => void,
    private readonly onGone: (worker: PoolWorker) => void,
  ) {
    this.worker = new Worker(source, { eval: true });
    this.worker.on('message', (message: { result?: unknown; error?: string }) => {
      const done = this.take();
      if (!done) return;
      if (message.error !== undefined) done.reject(new Error(`${this.name}: ${message.error}`));
      else done.resolve(message.result);
      this.onIdle(this);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => this.fail(new Error(`${this.name} worker exited`)));
    // After the listeners: adding a 'message' listener refs the worker again.
    this.worker.unref();
  }

  get busy(): boolean {
    return this.current !== null;
  }

  run(pending: Pending): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.current = pending;
    if (pending.timeoutMs !== undefined) {
      this.budgetTimer = setTimeout(() => this.fail(new WorkerTimeout(pending.timeoutMs!), true), pending.timeoutMs);
    }
    this.worker.postMessage(pending.job);
  }

  /** Ends the worker once it has had nothing to do for a while (leaving the pool first, so it gets no new job). */
  idle(): void {
    this.idleTimer = setTimeout(() => {
      this.onGone(this);
      void this.worker.terminate();
    }, idleMs);
    this.idleTimer.unref();
  }

  private take(): Pending | null {
    const current = this.current;
    this.current = null;
    if (this.budgetTimer) clearTimeout(this.budgetTimer);
    this.budgetTimer = null;
    return current;
  }

  private fail(error: Error, terminate = false): void {
    this.take()?.reject(error);
    this.onGone(this);
    if (terminate) void this.worker.terminate();
  }
}

export class WorkerPool {
  private readonly workers = new Set<PoolWorker>();
  private readonly queue: Pending[] = [];

  constructor(private readonly source: string, private readonly name: string, private readonly size = defaultPoolSize) {}

  /** Runs one job (posted to the worker as is); `timeoutMs` bounds its time on a worker, not its wait in the queue. */
  run<T>(job: unknown, timeoutMs?: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ job, timeoutMs, resolve: resolve as (value: unknown) => void, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let free = [...this.workers].find((worker) => !worker.busy);
      if (!free && this.workers.size < this.size) {
        free = new PoolWorker(
          this.source,
          this.name,
          (worker) => (this.queue.length > 0 ? this.dispatch() : worker.idle()),
          (worker) => {
            if (this.workers.delete(worker)) this.dispatch();
          },
        );
        this.workers.add(free);
      }
      if (!free) return;
      free.run(this.queue.shift()!);
    }
  }
}
