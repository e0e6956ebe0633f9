/**
 * The real download daemons for the download clients' tests (DL-14): each started from its Debian package on free
 * ports in a temporary directory, with no network needed (nothing is ever fetched: magnets and NZBs are added paused,
 * aria2 downloads from a local HTTP server), and stopped (its directory removed) after. Starting is waited for by
 * polling the daemon's API with a generous deadline: the machines running these tests are loaded.
 * `scripts/ensure-services.sh` installs the packages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { freePort } from '../../../scripts/free-port';

export const startTimeoutMs = 120_000;

export interface RunningDaemon {
  name: string;
  url: string;
  dir: string;
  stop(): Promise<void>;
  log(): string;
}

function need(binary: string): void {
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run scripts/ensure-services.sh (as root) or apt-get install its package`);
}

async function until<T>(what: string, child: ChildProcess, log: () => string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited while starting (${child.exitCode ?? child.signalCode}):\n${log()}`);
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not start within ${startTimeoutMs / 1000} s:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function launch(name: string, command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd: string; stdin?: string }) {
  need(command);
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  child.stdin!.end(options.stdin ?? '');
  child.on('error', (error) => keep(Buffer.from(`spawn error: ${error.message}\n`)));
  return { child, log: () => `${name}: ${output}` };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

function running(name: string, url: string, dir: string, children: ChildProcess[], log: () => string): RunningDaemon {
  return {
    name,
    url,
    dir,
    log,
    async stop() {
      for (const child of [...children].reverse()) await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function tempDir(name: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `tessera-${name}-`));
}

/** qBittorrent 4.5 (qbittorrent-nox) with its default WebUI login admin / adminadmin. */
export async function startQbittorrent(): Promise<RunningDaemon> {
  const dir = await tempDir('qbittorrent');
  const port = await freePort();
  const peerPort = await freePort();
  await mkdir(join(dir, '.config', 'qBittorrent'), { recursive: true });
  await writeFile(
    join(dir, '.config', 'qBittorrent', 'qBittorrent.conf'),
    [
      '[LegalNotice]',
      'Accepted=true',
      '[BitTorrent]',
      `Session\\Port=${peerPort}`,
      'Session\\DHTEnabled=false',
      'Session\\LSDEnabled=false',
      'Session\\PeXEnabled=false',
      '[Preferences]',
      `WebUI\\Port=${port}`,
      'WebUI\\Address=127.0.0.1',
      'Connection\\UPnP=false',
      '',
    ].join('\n'),
  );
  // "y" accepts the legal notice should the configuration's acceptance not be read (4.5 has no flag for it)
  const { child, log } = launch('qbittorrent-nox', '/usr/bin/qbittorrent-nox', [`--webui-port=${port}`], { cwd: dir, env: { HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') }, stdin: 'y\n' });
  const url = `http://127.0.0.1:${port}`;
  await until('qbittorrent-nox', child, log, async () => ((await fetch(`${url}/api/v2/app/version`)).status > 0 ? true : undefined));
  return running('qBittorrent', url, dir, [child], log);
}

export const qbittorrentLogin = { username: 'admin', password: 'adminadmin' };

/** Adds a magnet link to qBittorrent, paused (nothing is fetched). */
export async function qbittorrentAddMagnet(daemon: RunningDaemon, magnet: string, category?: string): Promise<void> {
  const headers = { referer: daemon.url, 'content-type': 'application/x-www-form-urlencoded' };
  const login = await fetch(`${daemon.url}/api/v2/auth/login`, { method: 'POST', headers, body: new URLSearchParams(qbittorrentLogin).toString() });
  const cookie = login.headers.getSetCookie()[0]?.split(';')[0];
  if (!cookie) throw new Error(`qBittorrent login failed: ${login.status} ${await login.text()}`);
  const form = new URLSearchParams({ urls: magnet, paused: 'true', ...(category ? { category } : {}) });
  const added = await fetch(`${daemon.url}/api/v2/torrents/add`, { method: 'POST', headers: { ...headers, cookie }, body: form.toString() });
  if (added.status !== 200) throw new Error(`qBittorrent torrents/add: ${added.status} ${await added.text()}`);
}

export const transmissionLogin = { username: 'tessera', password: 'transmission-test-password' };

/** transmission-daemon 3.00 with RPC authentication, no DHT, LPD, uTP or port mapping. */
export async function startTransmission(): Promise<RunningDaemon> {
  const dir = await tempDir('transmission');
  const port = await freePort();
  const peerPort = await freePort();
  const args = ['-f', '-g', join(dir, 'config'), '-p', String(port), '-P', String(peerPort), '-w', join(dir, 'downloads'), '-t', '-u', transmissionLogin.username, '-v', transmissionLogin.password, '-O', '-Y', '-M', '--no-utp', '-a', '127.0.0.1'];
  const { child, log } = launch('transmission-daemon', '/usr/bin/transmission-daemon', args, { cwd: dir, env: { HOME: dir } });
  const url = `http://127.0.0.1:${port}`;
  await until('transmission-daemon', child, log, async () => ((await fetch(`${url}/transmission/rpc`)).status > 0 ? true : undefined));
  return running('Transmission', url, dir, [child], log);
}

/** Adds a magnet link to Transmission, paused; answers its hash. */
export async function transmissionAddMagnet(daemon: RunningDaemon, magnet: string): Promise<string> {
  const auth = `Basic ${Buffer.from(`${transmissionLogin.username}:${transmissionLogin.password}`).toString('base64')}`;
  const body = JSON.stringify({ method: 'torrent-add', arguments: { filename: magnet, paused: true } });
  let session = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const answer = await fetch(`${daemon.url}/transmission/rpc`, { method: 'POST', headers: { authorization: auth, 'x-transmission-session-id': session }, body });
    if (answer.status === 409) {
      session = answer.headers.get('x-transmission-session-id') ?? '';
      continue;
    }
    const parsed = (await answer.json()) as { result: string; arguments: { 'torrent-added'?: { hashString: string }; 'torrent-duplicate'?: { hashString: string } } };
    const added = parsed.arguments['torrent-added'] ?? parsed.arguments['torrent-duplicate'];
    if (parsed.result !== 'success' || !added) throw new Error(`Transmission torrent-add: ${JSON.stringify(parsed)}`);
    return added.hashString;
  }
  throw new Error('Transmission kept answering 409');
}

/** deluge-web's default password. */
export const delugeWebPassword = 'deluge';

/**
 * deluged 2.0 and deluge-web 2.0: the daemon on a free port, its host list written for the web UI (which is left
 * not connected: the client connects it). Deluge 2.0.3 on Python 3.11 crashes in its logging above the default
 * level, so no -L is given.
 */
export async function startDeluge(): Promise<RunningDaemon & { daemonPort: number }> {
  const dir = await tempDir('deluge');
  const daemonPort = await freePort();
  const webPort = await freePort();
  const config = join(dir, 'config');
  await mkdir(config, { recursive: true });
  const daemon = launch('deluged', '/usr/bin/deluged', ['-d', '-c', config, '-p', String(daemonPort), '-u', '127.0.0.1'], { cwd: dir, env: { HOME: dir } });
  const localclient = await until('deluged', daemon.child, daemon.log, async () => {
    const auth = await readFile(join(config, 'auth'), 'utf8');
    const line = auth.split('\n').find((l) => l.startsWith('localclient:'));
    if (!line) return undefined;
    // listening for UIs yet?
    await new Promise<void>((resolve, reject) => {
      const socket = connect(daemonPort, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve()));
      socket.once('error', reject);
    });
    return line.split(':')[1]!;
  });
  await writeFile(join(config, 'hostlist.conf'), `${JSON.stringify({ file: 3, format: 1 })}${JSON.stringify({ hosts: [['0123456789abcdef0123456789abcdef', '127.0.0.1', daemonPort, 'localclient', localclient]] }, null, 4)}`);
  const web = launch('deluge-web', '/usr/bin/deluge-web', ['-d', '-c', config, '-p', String(webPort), '-i', '127.0.0.1'], { cwd: dir, env: { HOME: dir } });
  const url = `http://127.0.0.1:${webPort}`;
  const log = () => `${daemon.log()}\n${web.log()}`;
  await until('deluge-web', web.child, log, async () => ((await fetch(`${url}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"method":"auth.check_session","params":[],"id":1}' })).status === 200 ? true : undefined));
  return { ...running('Deluge', url, dir, [daemon.child, web.child], log), daemonPort };
}

/** Adds a magnet link to Deluge, paused, through a web UI already connected to its daemon; answers its hash. */
export async function delugeAddMagnet(daemon: RunningDaemon, magnet: string): Promise<string> {
  let cookie = '';
  const call = async (method: string, params: unknown[]) => {
    const answer = await fetch(`${daemon.url}/json`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ method, params, id: 1 }) });
    cookie = answer.headers.getSetCookie()[0]?.split(';')[0] ?? cookie;
    const parsed = (await answer.json()) as { result: unknown; error: unknown };
    if (parsed.error) throw new Error(`Deluge ${method}: ${JSON.stringify(parsed.error)}`);
    return parsed.result;
  };
  if ((await call('auth.login', [delugeWebPassword])) !== true) throw new Error('Deluge login failed');
  if ((await call('web.connected', [])) !== true) throw new Error('the Deluge web UI is not connected to its daemon');
  return String(await call('core.add_torrent_magnet', [magnet, { add_paused: true }]));
}

export const aria2Secret = 'aria2-test-secret';

/** aria2c 1.36 with JSON-RPC and an RPC secret, no DHT or local peer discovery. */
export async function startAria2(): Promise<RunningDaemon> {
  const dir = await tempDir('aria2');
  const port = await freePort();
  const args = ['--enable-rpc', `--rpc-listen-port=${port}`, `--rpc-secret=${aria2Secret}`, '-d', join(dir, 'downloads'), '--no-conf', '--enable-dht=false', '--enable-dht6=false', '--bt-enable-lpd=false', '--quiet'];
  const { child, log } = launch('aria2c', '/usr/bin/aria2c', args, { cwd: dir, env: { HOME: dir } });
  const url = `http://127.0.0.1:${port}`;
  await until('aria2c', child, log, async () => ((await fetch(`${url}/jsonrpc`, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'aria2.getVersion', params: [`token:${aria2Secret}`] }) })).status === 200 ? true : undefined));
  return running('aria2', url, dir, [child], log);
}

/** Adds a URI to aria2 (`pause: true` keeps it waiting); answers its gid. */
export async function aria2AddUri(daemon: RunningDaemon, uri: string, options: Record<string, string> = {}): Promise<string> {
  const answer = await fetch(`${daemon.url}/jsonrpc`, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'aria2.addUri', params: [`token:${aria2Secret}`, [uri], options] }) });
  const parsed = (await answer.json()) as { result?: string; error?: unknown };
  if (!parsed.result) throw new Error(`aria2.addUri: ${JSON.stringify(parsed.error)}`);
  return parsed.result;
}

export const nzbgetLogin = { username: 'tessera', password: 'nzbget-test-password' };

/** NZBGet 21 in server mode (foreground), its configuration the package's template with every directory in the temporary one and no news server. */
export async function startNzbget(): Promise<RunningDaemon> {
  const dir = await tempDir('nzbget');
  const port = await freePort();
  const template = await readFile('/usr/share/nzbget/webui/nzbget.conf', 'utf8');
  const settings: Record<string, string> = {
    MainDir: join(dir, 'main'),
    ControlIP: '127.0.0.1',
    ControlPort: String(port),
    ControlUsername: nzbgetLogin.username,
    ControlPassword: nzbgetLogin.password,
    'Server1.Active': 'no',
    'Server1.Host': '127.0.0.1',
    OutputMode: 'loggable',
  };
  const config = template
    .split('\n')
    .map((line) => {
      const key = line.split('=', 1)[0]!;
      return Object.hasOwn(settings, key) ? `${key}=${settings[key]}` : line;
    })
    .join('\n');
  const file = join(dir, 'nzbget.conf');
  await writeFile(file, config);
  need('/usr/bin/nzbget');
  const { child, log } = launch('nzbget', '/usr/bin/nzbget', ['-s', '-c', file], { cwd: dir, env: { HOME: dir } });
  const url = `http://127.0.0.1:${port}`;
  const auth = `Basic ${Buffer.from(`${nzbgetLogin.username}:${nzbgetLogin.password}`).toString('base64')}`;
  await until('nzbget', child, log, async () => ((await fetch(`${url}/jsonrpc`, { method: 'POST', headers: { authorization: auth }, body: '{"method":"version","params":[],"id":1}' })).status === 200 ? true : undefined));
  return running('NZBGet', url, dir, [child], log);
}

/** An NZB of one file with one article (never fetched: it is appended paused and there is no news server). */
export function nzbOf(subject: string): string {
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<nzb xmlns="http://www.newzbin.com/DTD/2003/nzb">',
    ` <file poster="test@example.invalid" date="1700000000" subject="&quot;${subject}&quot; yEnc (1/1)">`,
    '  <groups><group>alt.binaries.test</group></groups>',
    '  <segments><segment bytes="102400" number="1">part1@example.invalid</segment></segments>',
    ' </file>',
    '</nzb>',
    '',
  ].join('\n');
}

/** Appends an NZB to NZBGet, paused, in `category`; answers its NZBID. */
export async function nzbgetAppend(daemon: RunningDaemon, name: string, category: string): Promise<number> {
  const auth = `Basic ${Buffer.from(`${nzbgetLogin.username}:${nzbgetLogin.password}`).toString('base64')}`;
  const content = Buffer.from(nzbOf(`${name}.bin`)).toString('base64');
  // append(NZBFilename, Content, Category, Priority, AddToTop, AddPaused, DupeKey, DupeScore, DupeMode, PPParameters)
  const body = JSON.stringify({ method: 'append', params: [`${name}.nzb`, content, category, 0, false, true, '', 0, 'SCORE', []], id: 1 });
  const answer = await fetch(`${daemon.url}/jsonrpc`, { method: 'POST', headers: { authorization: auth }, body });
  const parsed = (await answer.json()) as { result?: number };
  if (!parsed.result || parsed.result <= 0) throw new Error(`NZBGet append: ${JSON.stringify(parsed)}`);
  return parsed.result;
}
