/**
 * What the change feed costs (issues 18, 33): N open event streams on one public board spread over one or more
 * Tessera instances on one database, the time from a PUT's response to the moment the last of them has the PUT's
 * event (p50, p99 over the PUTs), and the memory an open stream takes on the server (RSS growth of each instance's
 * process per stream open on it, after a full garbage collection). Each instance is a process of its own
 * (events-instance.ts), on PostgreSQL when DATABASE_URL is set (all in one fresh schema; the instances learn of each
 * other's writes through LISTEN/NOTIFY only), else on an in-memory PGlite (one instance). The streams are opened by
 * client processes of their own (events-client.ts), anonymous callers from many loopback addresses so that each stays
 * within EVENT-5's cap per caller (the default cap: the rule is not relaxed). The PUTs go to the instances in turn.
 * Nothing is asserted.
 *
 *   npx tsx scripts/bench/events.ts [--streams 1000] [--puts 30] [--instances 1] [--clients 1]
 *
 * BENCH_NODE_ARGS adds node options to the instances and the clients (for example `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import knexFactory from 'knex';
import { loadConfig } from '../../src/config/config';

export interface EventsRow {
  figure: string;
  value: string;
  note: string;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];
const now = () => performance.timeOrigin + performance.now();

type Message = { url?: string; rss?: number; heapUsed?: number; cpu?: NodeJS.CpuUsage; opened?: number; error?: string; revision?: number; at?: number };

/** A child process with IPC whose messages can be awaited one kind at a time. */
function child(script: string, execArgv: string[], env: Record<string, string>) {
  const process_ = fork(path.join(__dirname, script), [], { execArgv: [...execArgv, '--require', 'tsx/cjs'], env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const waiting: { want: (m: Message) => boolean; resolve: (m: Message) => void; reject: (e: Error) => void }[] = [];
  const listeners: ((m: Message) => void)[] = [];
  process_.on('message', (message: Message) => {
    if (message.error) for (const w of waiting.splice(0)) w.reject(new Error(`${script}: ${message.error}`));
    const index = waiting.findIndex((w) => w.want(message));
    if (index >= 0) waiting.splice(index, 1)[0].resolve(message);
    listeners.forEach((listener) => listener(message));
  });
  process_.on('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`${script} exited (${code})`));
  });
  return {
    process: process_ as ChildProcess,
    next: (want: (m: Message) => boolean) => new Promise<Message>((resolve, reject) => waiting.push({ want, resolve, reject })),
    onMessage: (listener: (m: Message) => void) => listeners.push(listener),
    send: (message: unknown) => process_.send(message as string),
  };
}

export async function benchEvents(options: { streams: number; puts: number; instances?: number; clients?: number; log?: (line: string) => void }): Promise<EventsRow[]> {
  const log = options.log ?? ((line: string) => console.error(line));
  const instanceCount = options.instances ?? 1;
  const clientCount = options.clients ?? Math.max(1, Math.ceil(options.streams / 5000));
  const url = process.env.DATABASE_URL;
  if (!url && instanceCount > 1) throw new Error('several instances need PostgreSQL (DATABASE_URL)');
  const key = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const schema = `bench_events_${randomBytes(4).toString('hex')}`;
  const perAddress = loadConfig({}).eventStreamsPerCaller;
  const admin = url ? knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } }) : null;
  await admin?.raw(`CREATE SCHEMA "${schema}"`);
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const instances: ReturnType<typeof child>[] = [];
  const clients: ReturnType<typeof child>[] = [];
  try {
    const urls: string[] = [];
    // One after another: the first migrates the schema.
    for (let i = 0; i < instanceCount; i++) {
      const instance = child('events-instance.ts', ['--expose-gc', ...nodeArgs], { BENCH_SCHEMA: schema, BENCH_ADMIN_KEY: key });
      instances.push(instance);
      urls.push((await instance.next((m) => m.url !== undefined)).url!);
    }
    const api = async (method: string, target: string, body?: unknown) => {
      const response = await fetch(target, { method, headers: { ApiKey: key, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${target} -> ${response.status} ${text.slice(0, 200)}`);
      return text ? JSON.parse(text) : undefined;
    };
    const { boardId } = await api('POST', `${urls[0]}/api/boards`, { name: `bench-events-${randomBytes(3).toString('hex')}`, columnCount: 12, isPublic: true });
    const doc = await api('GET', `${urls[0]}/api/boards/${boardId}`);
    const put = (n: number) => {
      const items = n % 2 === 0 ? [{ id: `bench-${n}`, kind: 'clock', options: {}, integrationIds: [], advancedOptions: {}, layouts: [{ layoutId: doc.layouts[0].id, sectionId: doc.sections[0].id, xOffset: 0, yOffset: 0, width: 1, height: 1 }] }] : [];
      return api('PUT', `${urls[n % urls.length]}/api/boards/${boardId}`, { sections: doc.sections, items });
    };
    // Warm up every instance's stream, write and delivery paths before its memory is taken.
    await put(0);
    const usageOf = async () => Promise.all(instances.map(async (instance) => {
      instance.send('rss');
      return (await instance.next((m) => m.rss !== undefined)) as { rss: number; heapUsed: number; cpu: NodeJS.CpuUsage };
    }));
    const before = await usageOf();

    // Revision → when each client's last stream saw it.
    const arrivals = new Map<number, number[]>();
    const targets = urls.map((base) => `${base}/api/boards/${boardId}/events`);
    const opening = performance.now();
    await Promise.all(Array.from({ length: clientCount }, async (_, c) => {
      const client = child('events-client.ts', nodeArgs, {});
      clients.push(client);
      client.onMessage((m) => {
        if (m.revision !== undefined) (arrivals.get(m.revision) ?? arrivals.set(m.revision, []).get(m.revision)!).push(m.at!);
      });
      const first = Math.floor((options.streams * c) / clientCount);
      const count = Math.floor((options.streams * (c + 1)) / clientCount) - first;
      client.send({ open: { targets, first, count, addresses: Math.ceil(options.streams / perAddress) } });
      await client.next((m) => m.opened !== undefined);
    }));
    log(`  events: ${options.streams} streams open on ${instanceCount} instance(s) in ${Math.round(performance.now() - opening)} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await usageOf();
    const streamsOn = (i: number) => Math.floor((options.streams + instanceCount - 1 - i) / instanceCount);
    const kib = (bytes: number, streams: number) => Math.round((bytes / streams / 1024) * 10) / 10;
    const kibPerStream = after.map((usage, i) => `${kib(usage.rss - before[i].rss, streamsOn(i))} (heap ${kib(usage.heapUsed - before[i].heapUsed, streamsOn(i))})`);

    const { entries } = await api('GET', `${urls[0]}/api/boards/${boardId}/history?limit=1`);
    let revision = entries[0].revision as number;
    const latencies: number[] = [];
    const cpuBefore = await usageOf();
    for (let n = 1; n <= options.puts; n++) {
      await put(n);
      const answered = now();
      revision++;
      const deadline = Date.now() + 10_000;
      while ((arrivals.get(revision)?.length ?? 0) < clientCount && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
      const times = arrivals.get(revision) ?? [];
      if (times.length < clientCount) throw new Error(`revision ${revision}: ${times.length} of ${clientCount} clients had it on every stream`);
      latencies.push(Math.max(...times) - answered);
    }
    const cpuAfter = await usageOf();
    // Server CPU (user + system) over the PUTs, per event delivered to one stream: the PUTs' own handling counts in.
    const cpuPerDelivery = cpuAfter.map(({ cpu }, i) => {
      const per = (micros: number) => Math.round((micros / (options.puts * streamsOn(i))) * 10) / 10;
      const user = cpu.user - cpuBefore[i].cpu.user;
      const system = cpu.system - cpuBefore[i].cpu.system;
      return `${per(user + system)} (user ${per(user)}, system ${per(system)})`;
    });
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return [
      { figure: 'streams', value: String(options.streams), note: `anonymous, on one public board, from ${Math.ceil(options.streams / perAddress)} loopback addresses (${perAddress} each, EVENT-5's cap), opened by ${clientCount} client process(es)` },
      { figure: 'instances', value: String(instanceCount), note: url ? 'processes on one PostgreSQL schema' : 'in-memory PGlite' },
      {
        figure: `PUT response to the last of ${options.streams} streams' event (p50 / p99 ms)`,
        value: `${round(percentile(latencies, 50))} / ${round(percentile(latencies, 99))}`,
        note: `${options.puts} PUTs one after another, to the instances in turn`,
      },
      {
        figure: 'server CPU per event delivered to one stream (µs), per instance',
        value: cpuPerDelivery.join(' / '),
        note: "user + system CPU of each instance's process over the PUTs (theirs included) / (PUTs × its streams)",
      },
      {
        figure: 'memory per open stream (KiB), per instance',
        value: kibPerStream.join(' / '),
        note: `RSS growth of each instance's process (after a full GC) over the ${streamsOn(0)} streams open on it, and of its JS heap in use; the clients are other processes`,
      },
    ];
  } finally {
    for (const client of clients) client.send('close');
    await Promise.all(instances.map((instance) => new Promise((resolve) => {
      if (instance.process.exitCode !== null) return resolve(undefined);
      instance.process.once('exit', resolve);
      instance.send('stop');
      setTimeout(() => instance.process.kill('SIGKILL'), 15_000).unref();
    })));
    if (admin) {
      await admin.raw(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.destroy();
    }
  }
}

if (require.main === module) {
  const { values } = parseArgs({ options: { streams: { type: 'string', default: '1000' }, puts: { type: 'string', default: '30' }, instances: { type: 'string', default: '1' }, clients: { type: 'string' } } });
  benchEvents({ streams: Number(values.streams), puts: Number(values.puts), instances: Number(values.instances), clients: values.clients ? Number(values.clients) : undefined })
    .then((rows) => {
      console.log(`\nTessera change feed benchmark: ${process.env.DATABASE_URL ? 'postgresql' : 'pglite'}, node ${process.version}\n`);
      console.log('| figure | value | note |\n|---|---|---|');
      for (const row of rows) console.log(`| ${row.figure} | ${row.value} | ${row.note} |`);
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
