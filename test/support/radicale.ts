/**
 * A real Radicale (Debian's `radicale`, installed by scripts/ensure-services.sh) on a free port, with its storage and
 * a plain-text htpasswd file in a temporary directory, for the iCal client's tests (CAL-*). Only its own config file
 * is read (never /etc/radicale). `stop()` ends it and removes the directory.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/free-port';

export interface Radicale {
  url: string;
  user: string;
  password: string;
  /** Creates the calendar collection `/<user>/<name>/` (MKCOL) and answers its URL. */
  createCalendar(name: string): Promise<string>;
  /** PUTs one iCalendar object into a calendar collection. */
  put(calendarUrl: string, fileName: string, ics: string): Promise<void>;
  stop(): Promise<void>;
}

const binary = process.env.RADICALE_PATH ?? '/usr/bin/radicale';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startRadicale(): Promise<Radicale> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-radicale-'));
  const port = await freePort();
  const user = 'alice';
  const password = 'radicale-test-password';
  writeFileSync(path.join(dir, 'users'), `${user}:${password}\n`);
  writeFileSync(
    path.join(dir, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${path.join(dir, 'users')}`,
      'htpasswd_encryption = plain',
      'delay = 0',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${path.join(dir, 'collections')}`,
      '[web]',
      'type = none',
      '[logging]',
      'level = warning',
      '',
    ].join('\n'),
  );
  let log = '';
  const child: ChildProcess = spawn(binary, ['--config', path.join(dir, 'config')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk) => (log += chunk));
  child.stderr?.on('data', (chunk) => (log += chunk));
  let exited = false;
  child.on('exit', () => (exited = true));
  child.on('error', (error) => {
    exited = true;
    log += `${error.message}: install radicale (sh scripts/ensure-services.sh)`;
  });
  const url = `http://127.0.0.1:${port}`;
  const auth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  // Radicale is Python: on a loaded machine it may take many seconds to listen. Wait for it (2 minutes at most).
  for (let i = 0; ; i++) {
    if (exited) throw new Error(`radicale exited while starting: ${log}`);
    try {
      const answer = await fetch(`${url}/${user}/`, { headers: { authorization: auth }, method: 'PROPFIND' });
      await answer.arrayBuffer();
      break;
    } catch {
      if (i > 1200) throw new Error(`radicale did not start: ${log}`);
      await sleep(100);
    }
  }
  return {
    url,
    user,
    password,
    async createCalendar(name) {
      const collection = `${url}/${user}/${name}/`;
      const body =
        '<?xml version="1.0" encoding="utf-8"?><D:mkcol xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>' +
        '<D:resourcetype><D:collection/><C:calendar/></D:resourcetype></D:prop></D:set></D:mkcol>';
      const answer = await fetch(collection, { method: 'MKCOL', headers: { authorization: auth, 'content-type': 'application/xml' }, body });
      if (answer.status !== 201) throw new Error(`MKCOL ${name}: ${answer.status} ${await answer.text()}`);
      return collection;
    },
    async put(calendarUrl, fileName, ics) {
      const answer = await fetch(`${calendarUrl}${fileName}`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'text/calendar; charset=utf-8' }, body: ics });
      if (answer.status !== 201 && answer.status !== 204) throw new Error(`PUT ${fileName}: ${answer.status} ${await answer.text()}`);
    },
    async stop() {
      if (!exited) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
