/**
 * bcrypt off the event loop (SEC-6). bcryptjs is plain JavaScript: a cost-10 hash or comparison holds the thread it
 * runs on for about 70 ms, so it runs on worker threads (src/core/workerPool.ts) and requests go on being served
 * meanwhile.
 */
import { WorkerPool } from '../core/workerPool';

type Job = { op: 'hash'; password: string; cost: number } | { op: 'compare'; password: string; hash: string };

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

const pool = new WorkerPool(workerSource, 'bcrypt');

const runJob = <T extends string | boolean>(job: Job) => pool.run<T>(job);

export const bcryptHash = (password: string, cost: number) => runJob<string>({ op: 'hash', password, cost });
export const bcryptCompare = (password: string, hash: string) => runJob<boolean>({ op: 'compare', password, hash });
