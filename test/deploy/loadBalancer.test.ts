/**
 * The compose topology with processes (LB-1..4): nginx (Debian's package, from deploy/nginx/tessera.conf.template, the
 * file docker-compose.yml mounts) in front of two Tessera processes on one PostgreSQL database. Needs PostgreSQL:
 * skipped only when TEST_DATABASE_URL is unset. nginx is installed by scripts/ensure-nginx.sh when missing (as root).
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { freePort } from '../../scripts/free-port';
import { requestFrom } from '../support/fromAddress';

const pgUrl = process.env.TEST_DATABASE_URL;
const describeWithPostgres = pgUrl ? describe : describe.skip;
const repoRoot = path.join(__dirname, '../..');
const nginxBinary = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
const adminKey = `admin${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `url` until it answers 200 (a process starting). */
async function waitFor(url: string, what: () => string, isAlive: () => boolean = () => true): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (!isAlive()) throw new Error(`${what()} exited while starting`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${what()} did not become ready at ${url}`);
}

/** One Tessera process (src/main.ts through tsx), restartable on the same port. */
class Instance {
  process: ChildProcess | null = null;
  log = '';
  constructor(
    readonly port: number,
    readonly env: NodeJS.ProcessEnv,
  ) {}
  get url() {
    return `http://127.0.0.1:${this.port}`;
  }
  start(): void {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', 'src/main.ts'], {
      cwd: repoRoot,
      env: { ...this.env, PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (this.log += chunk));
    child.stderr!.on('data', (chunk) => (this.log += chunk));
    this.process = child;
  }
  async ready(): Promise<void> {
    const child = this.process!;
    await waitFor(`${this.url}/api/health/ready`, () => `instance on ${this.port} (what it printed follows):\n${this.log}\n--`, () => child.exitCode === null && child.signalCode === null);
  }
  /** SIGTERM, as docker stop sends, and waits for the exit. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    this.process = null;
  }
}

interface FeedEvent {
  id: number | null;
  event: string;
  data: string;
}

/**
 * A change-feed client that behaves like a browser's EventSource: on a dropped stream it waits the `retry` the server
 * announced and reconnects with Last-Event-ID. It counts drops and reconnection attempts that failed.
 */
class FeedClient {
  revisions: number[] = [];
  events: FeedEvent[] = [];
  upstreams: string[] = [];
  drops = 0;
  failedAttempts = 0;
  /** What each failed attempt got (a status, or the error's name), for the report. */
  readonly failures: string[] = [];
  private retryMs = 2000;
  private stopped = false;
  private abort = new AbortController();
  private loop: Promise<void> | null = null;
  private connected!: () => void;
  /** Resolves once the first stream is open. */
  readonly open = new Promise<void>((resolve) => (this.connected = resolve));

  constructor(readonly url: string) {}

  start(): void {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const last = this.revisions.at(-1);
      try {
        const response = await fetch(this.url, {
          headers: { ApiKey: adminKey, ...(last !== undefined ? { 'Last-Event-ID': String(last) } : {}) },
          signal: this.abort.signal,
        });
        if (response.status !== 200 || !response.body) {
          this.failedAttempts++;
          this.failures.push(String(response.status));
          await response.body?.cancel();
        } else {
          this.upstreams.push(response.headers.get('x-tessera-upstream') ?? '?');
          this.connected();
          await this.read(response.body);
          if (!this.stopped) this.drops++;
        }
      } catch (error) {
        if (this.stopped) return;
        // A stream cut while reading is a drop; a request that failed is a failed attempt.
        if ((error as Error).name === 'DropError') this.drops++;
        else {
          this.failedAttempts++;
          this.failures.push((error as Error).name);
        }
      }
      if (!this.stopped) await sleep(this.retryMs);
    }
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          this.handle(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch (error) {
      if (this.stopped) return;
      const drop = new Error(`stream cut: ${(error as Error).message}`);
      drop.name = 'DropError';
      throw drop;
    }
  }

  private handle(block: string): void {
    const event: FeedEvent = { id: null, event: 'message', data: '' };
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const [field, ...rest] = line.split(':');
      const value = rest.join(':').replace(/^ /, '');
      if (field === 'retry') this.retryMs = Number(value);
      else if (field === 'id') event.id = Number(value);
      else if (field === 'event') event.event = value;
      else if (field === 'data') event.data += value;
    }
    if (event.id === null && event.data === '') return;
    this.events.push(event);
    if (event.event === 'change' && event.id !== null) this.revisions.push(event.id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.loop;
  }
}

describeWithPostgres('LB: two instances behind nginx on one PostgreSQL database', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'tessera-lb-'));
  const database = `tessera_lb_${randomBytes(5).toString('hex')}`;
  const admin = () => knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
  let databaseUrl: string;
  let instances: Instance[] = [];
  let nginx: ChildProcess | null = null;
  let proxyUrl: string;
  let db: ReturnType<typeof knexFactory>;

  const api = (base: string, method: string, route: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(base + route, {
      method,
      headers: { ApiKey: adminKey, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    if (!existsSync(nginxBinary)) execFileSync('sh', [path.join(repoRoot, 'scripts/ensure-nginx.sh')], { stdio: 'inherit' });
    const setup = admin();
    await setup.raw(`CREATE DATABASE "${database}"`);
    await setup.destroy();
    const url = new URL(pgUrl!);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    db = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 2 } });

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      // SECRET-2: every instance on one database shares one secrets key.
      SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      TRUST_PROXY: 'true',
      BOOTSTRAP_ADMIN_API_KEY: adminKey,
      LOG_LEVEL: 'warn',
      BOARD_HISTORY_LIMIT: '100000',
    };
    instances = [new Instance(await freePort(), env), new Instance(await freePort(), env)];
    // LB-3: both start at once on the empty database, as compose starts them.
    for (const instance of instances) instance.start();
    await Promise.all(instances.map((instance) => instance.ready()));

    const listenPort = await freePort();
    proxyUrl = `http://127.0.0.1:${listenPort}`;
    const template = readFileSync(path.join(repoRoot, 'deploy/nginx/tessera.conf.template'), 'utf8');
    const values: Record<string, string> = { TESSERA_1: `127.0.0.1:${instances[0].port}`, TESSERA_2: `127.0.0.1:${instances[1].port}`, LISTEN_PORT: `127.0.0.1:${listenPort}` };
    writeFileSync(path.join(work, 'tessera.conf'), template.replace(/\$\{(\w+)\}/g, (_m, name: string) => values[name] ?? `\${${name}}`));
    for (const dir of ['logs', 'temp']) mkdirSync(path.join(work, dir), { recursive: true });
    writeFileSync(
      path.join(work, 'nginx.conf'),
      [
        'daemon off;',
        'master_process on;',
        'worker_processes 1;',
        `pid ${work}/nginx.pid;`,
        `error_log ${work}/logs/error.log warn;`,
        'events { worker_connections 1024; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${work}/temp/${kind};`),
        `  include ${work}/tessera.conf;`,
        '}',
      ].join('\n'),
    );
    nginx = spawn(nginxBinary, ['-p', work, '-e', `${work}/logs/error.log`, '-c', `${work}/nginx.conf`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let nginxOutput = '';
    nginx.stderr!.on('data', (chunk) => (nginxOutput += chunk));
    await waitFor(`${proxyUrl}/api/health/live`, () => 'nginx', () => nginx!.exitCode === null || (console.error(nginxOutput), false));
  }, 300_000);

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx!.once('exit', resolve));
      nginx.kill('SIGQUIT');
      await exited;
    }
    await Promise.all(instances.map((instance) => instance.stop()));
    await db?.destroy();
    const cleanup = admin();
    await cleanup.raw(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await cleanup.destroy();
    rmSync(work, { recursive: true, force: true });
  }, 60_000);

  async function createBoard(name: string): Promise<string> {
    const response = await api(proxyUrl, 'POST', '/api/boards', { name, columnCount: 12, isPublic: false });
    expect(response.status).toBe(201);
    return ((await response.json()) as { boardId: string }).boardId;
  }

  it('LB-1: a write through one instance is seen in the change feed of a client connected through nginx to the other', async () => {
    const boardId = await createBoard(`lb-feed-${randomBytes(3).toString('hex')}`);
    const feed = new FeedClient(`${proxyUrl}/api/boards/${boardId}/events`);
    feed.start();
    await feed.open;
    const [upstream] = feed.upstreams;
    const other = instances.find((instance) => !upstream.endsWith(`:${instance.port}`))!;
    expect(instances.filter((instance) => upstream.endsWith(`:${instance.port}`))).toHaveLength(1);
    const write = await api(other.url, 'PATCH', `/api/boards/${boardId}/settings`, { pageTitle: 'written on the other instance' });
    expect(write.status).toBe(204);
    for (let i = 0; i < 300 && feed.events.length === 0; i++) await sleep(100);
    await feed.stop();
    expect(feed.events).toHaveLength(1);
    expect(feed.events[0]).toMatchObject({ event: 'change' });
    expect(JSON.parse(feed.events[0].data)).toMatchObject({ operation: 'updateBoardSettings' });
  }, 60_000);

  it('LB-2: the client address behind nginx is the client\'s socket address; an X-Forwarded-For the client sends is ignored', async () => {
    const username = `nobody-${randomBytes(3).toString('hex')}`;
    // The client connects from a second loopback address (nginx and the instances listen on 127.0.0.1) and claims another.
    const response = await requestFrom('127.0.0.2', `${proxyUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'X-Forwarded-For': '203.0.113.77' },
      body: { username, password: 'wrong-password-1' },
    });
    expect(response.status).toBe(401);
    const [entry] = await db('audit_log').where({ action: 'auth.login', outcome: 'failure' }).whereRaw(`details->>'username' = ?`, [username]).select('client_address');
    expect(entry).toEqual({ client_address: '127.0.0.2' });
    // The login throttle counts failures per client address (SEC rules): the client's, neither nginx's nor the claimed one.
    const keys = (await db('login_failures').select('key')).map((row: { key: string }) => row.key);
    expect(keys).toContain('ip:127.0.0.2');
    expect(keys).not.toContain('ip:203.0.113.77');
    expect(keys).not.toContain('ip:127.0.0.1');
  });

  it('LB-4: a rolling restart of both instances under a write load loses no acknowledged write, and every stream resumes within one retry per drop without missing an event', async () => {
    const boardId = await createBoard(`lb-rolling-${randomBytes(3).toString('hex')}`);
    const feeds = Array.from({ length: 4 }, () => new FeedClient(`${proxyUrl}/api/boards/${boardId}/events`));
    for (const feed of feeds) feed.start();
    await Promise.all(feeds.map((feed) => feed.open));

    const acknowledged = { boards: [] as string[], settings: 0 };
    const refused: string[] = [];
    let writing = true;
    const writer = async (lane: number) => {
      for (let n = 0; writing; n++) {
        const name = `lb-w${lane}-${n}`;
        try {
          const created = await api(proxyUrl, 'POST', '/api/boards', { name, columnCount: 4, isPublic: false });
          if (created.status === 201) acknowledged.boards.push(name);
          else refused.push(`POST ${name}: ${created.status} ${await created.text()}`);
          const patched = await api(proxyUrl, 'PATCH', `/api/boards/${boardId}/settings`, { pageTitle: name });
          if (patched.status === 204) acknowledged.settings++;
          else refused.push(`PATCH ${name}: ${patched.status} ${await patched.text()}`);
        } catch (error) {
          refused.push(`${name}: ${(error as Error).message}`);
        }
      }
    };
    const writers = [writer(0), writer(1)];
    const progress = async (writes: number) => {
      const target = acknowledged.settings + writes;
      while (acknowledged.settings < target) await sleep(50);
    };

    await progress(20);
    for (const instance of instances) {
      await instance.stop();
      await progress(10); // served by the other instance alone
      instance.start();
      await instance.ready();
      await progress(20);
    }
    writing = false;
    await Promise.all(writers);

    // Every acknowledged write is in the database.
    const names = new Set((await db('boards').where('name', 'like', 'lb-w%').select('name')).map((row: { name: string }) => row.name));
    expect(acknowledged.boards.filter((name) => !names.has(name))).toEqual([]);
    const [{ n: settingsEntries }] = (await db('board_history').where({ board_id: boardId, operation: 'updateBoardSettings' }).count('* as n')) as { n: string }[];
    expect(Number(settingsEntries)).toBe(acknowledged.settings);
    const [{ latest }] = (await db('board_history').where({ board_id: boardId }).max('revision as latest')) as { latest: number }[];

    // Every stream caught up to the last revision, without a gap, each drop resumed within one retry.
    for (let i = 0; i < 600 && feeds.some((feed) => feed.revisions.at(-1) !== latest); i++) await sleep(100);
    for (const feed of feeds) await feed.stop();
    for (const feed of feeds) {
      expect(feed.revisions.at(-1)).toBe(latest);
      const gaps = feed.revisions.slice(1).filter((revision, i) => revision !== feed.revisions[i] + 1);
      expect(gaps).toEqual([]);
      expect(feed.events.filter((event) => event.event !== 'change')).toEqual([]);
      expect(feed.drops).toBeGreaterThanOrEqual(1);
      // A reconnect that reaches an instance as it stops may fail once; the next one (after the server's retry
      // period) resumes from Last-Event-ID. Never more than one failed attempt per drop.
      expect(feed.failedAttempts).toBeLessThanOrEqual(feed.drops);
    }
    // Reported, not asserted: writes nginx could not place on either instance are answered, never acknowledged.
    console.log(
      JSON.stringify({
        acknowledgedBoards: acknowledged.boards.length,
        acknowledgedSettings: acknowledged.settings,
        refused,
        drops: feeds.map((feed) => feed.drops),
        failedAttempts: feeds.map((feed) => feed.failures),
        upstreams: feeds.map((feed) => feed.upstreams),
      }),
    );
  }, 240_000);
});
