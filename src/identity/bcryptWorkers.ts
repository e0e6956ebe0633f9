/**
 * bcrypt off the event loop (SEC-6). bcryptjs is plain JavaScript: a cost-10 hash or comparison holds the thread it
 * runs on for about 70 ms, so it runs on worker threads and requests go on being served meanwhile. Workers start on
 * first use, do one job at a time each, never keep the process alive, and end after a while without work.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';

type Job = { op: 'hash'; password: string; cost: number } | { op: 'compare'; password: string; hash: string };

interface Pending {
  job: Job;
  resolve(value: string | boolean): void;
  reject(error: Error): void;
}

/** The worker's code, plain JavaScript (it runs outside any TypeScript loader), with bcryptjs resolved from here. */
const workerSource = `
const { parentPort } = require('node:worker_threads');
const bcrypt = require(${JSON.stringify(require.resolve('bcryptjs'))});
parentPort.on('message', (job) => {
  try {
    const result = job.op === 'hash' ? bcrypt.hashSync(job.password, job.cost) : bcrypt.compareSync(job.password, job.hash);
    parentPort.postMessage({ result });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
`;

/** Leaves a core for the event loop; at least one worker. */
const poolSize = Math.max(1, Math.min(4, os.availableParallelism() - 1));
const idleMs = 30_000;

class BcryptWorker {
  private readonly worker = new Worker(workerSource, { eval: true });
  private current: Pending | null = null;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly onIdle: (worker: BcryptWorker) => void, private readonly onGone: (worker: BcryptWorker) => void) {
    this.worker.on('message', (message: { result?: string | boolean; error?: string }) => {
      const done = this.current!;
      this.current = null;
      if (message.error !== undefined) done.reject(new Error(`bcrypt: ${message.error}`));
      else done.resolve(message.result!);
      this.onIdle(this);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => this.fail(new Error('bcrypt worker exited')));
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

  private fail(error: Error): void {
    this.current?.reject(error);
    this.current = null;
    this.onGone(this);
  }
}

const workers = new Set<BcryptWorker>();
const queue: Pending[] = [];

function dispatch(): void {
  while (queue.length > 0) {
    let free = [...workers].find((worker) => !worker.busy);
    if (!free && workers.size < poolSize) {
      free = new BcryptWorker(
        (worker) => (queue.length > 0 ? dispatch() : worker.idle()),
        (worker) => {
          workers.delete(worker);
          dispatch();
        },
      );
      workers.add(free);
    }
    if (!free) return;
    free.run(queue.shift()!);
  }
}

function runJob<T extends string | boolean>(job: Job): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    queue.push({ job, resolve: resolve as (value: string | boolean) => void, reject });
    dispatch();
  });
}

export const bcryptHash = (password: string, cost: number) => runJob<string>({ op: 'hash', password, cost });
export const bcryptCompare = (password: string, hash: string) => runJob<boolean>({ op: 'compare', password, hash });
