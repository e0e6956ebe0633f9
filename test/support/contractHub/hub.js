// The contract run's Prism pool (CONTRACT_PROXY=1; started once by test/support/contractHub/globalSetup.ts).
//
// Starting `prism proxy` costs seconds of CPU (it loads and compiles the whole document), and the suite starts a test
// server hundreds of times. So each Prism is started once and reused: its upstream is a router of this process that
// forwards to whichever test server the Prism is attached to at the moment.
//
// Control (JSON over HTTP on the port printed on the first line):
//   POST /attach {upstream, owner, file} -> {slot, url}   a Prism in front of `upstream`
//   POST /detach {slot}                  -> {output}      what the Prism logged while attached
//
// A Prism is reused only by the same jest worker (`owner`, its pid) and only for another test file (`file`): a worker
// runs one file at a time, so when a later file attaches, every client of the earlier file (a browser page, an open
// stream) is gone and no request of it can reach the new server. Detaching sends a marker request through the Prism
// and waits for its log line: everything logged before it belongs to the session that ends. A Prism that stops
// answering is replaced.
'use strict';
const http = require('node:http');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { freeLocalPort } = require('../../../scripts/mock');

const repoRoot = path.resolve(__dirname, '../../..');
const prismEntry = path.join(repoRoot, 'node_modules/@stoplight/prism-cli/dist/index.js');
const specFile = path.join(repoRoot, 'generated/openapi.json');
const markerPrefix = '/__contract_hub_marker_';

const slots = [];
let slotCount = 0;
let markers = 0;

/** The router in front of a slot's current test server: method, path, headers and body as they come (Host as the
 * server would have seen it from Prism directly), the answer streamed back. */
function startRouter(slot) {
  const router = http.createServer((req, res) => {
    if (req.url.startsWith(markerPrefix)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('contract hub marker');
      return;
    }
    if (!slot.target) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('no test server attached to this contract proxy');
      return;
    }
    const target = new URL(slot.target);
    const headers = { ...req.headers, host: target.host };
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode, answer.rawHeaders);
      answer.pipe(res);
    });
    // A server may answer before it has read the whole body (a 413) and close: the answer still goes back whole, and
    // the rest of the body is read and dropped, as the server itself would have done.
    upstream.on('error', () => {
      req.unpipe(upstream);
      req.resume();
      if (!res.headersSent) res.destroy();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  // Prism's client keeps connections alive (Node's default agent): a router closing an idle one after the default 5 s
  // races Prism's next request on it (EPIPE). They end with the hub.
  router.keepAliveTimeout = 0;
  router.requestTimeout = 0;
  return new Promise((resolve) => router.listen(0, '127.0.0.1', () => resolve(router)));
}

function startPrism(slot, upstream) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [prismEntry, 'proxy', specFile, upstream, '-h', '127.0.0.1', '-p', String(slot.port)], {
      cwd: repoRoot,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    slot.child = child;
    const onData = (chunk) => {
      slot.output += chunk.toString();
      if (!slot.listening && /Prism is listening/.test(slot.output)) {
        slot.listening = true;
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      slot.dead = true;
      if (slot.listening) console.error(`contract hub: the Prism of slot ${slot.id} exited (${code}); it logged last:\n${slot.output.slice(-2000)}`);
      if (!slot.listening) reject(new Error(`Prism exited with ${code} before listening:\n${slot.output}`));
    });
  });
}

async function newSlot() {
  for (let attempt = 1; ; attempt += 1) {
    const slot = { id: (slotCount += 1), port: await freeLocalPort(), output: '', target: null, busy: true, listening: false };
    slot.router = await startRouter(slot);
    try {
      await startPrism(slot, `http://127.0.0.1:${slot.router.address().port}`);
      slots.push(slot);
      return slot;
    } catch (error) {
      slot.router.close();
      if (attempt >= 3 || !/EADDRINUSE/.test(String(error))) throw error;
    }
  }
}

/** A marker request through the slot's Prism (answered by the router, never forwarded): true once Prism logged it. */
async function sendMarker(slot) {
  const marker = `${markerPrefix}${(markers += 1)}`;
  try {
    await fetch(`http://127.0.0.1:${slot.port}${marker}`).then((r) => r.arrayBuffer());
  } catch {
    return null;
  }
  for (let waited = 0; !slot.output.includes(marker, slot.start); waited += 20) {
    if (waited > 60_000 || slot.dead) return null;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return marker;
}

async function attach({ upstream, owner, file }) {
  let slot = slots.find((s) => !s.busy && !s.dead && s.owner === owner && s.file !== file);
  if (slot) {
    slot.busy = true;
    slot.start = slot.output.length;
    if (!(await sendMarker(slot))) {
      slot.dead = true;
      slot = null;
    }
  }
  if (!slot) slot = await newSlot();
  Object.assign(slot, { target: upstream, owner, file, start: slot.output.length });
  if (process.env.CONTRACT_HUB_DEBUG) console.error(`contract hub: slot ${slot.id} (of ${slots.length}) -> ${upstream}`);
  return { slot: slot.id, url: `http://127.0.0.1:${slot.port}` };
}

async function detach({ slot: id }) {
  const slot = slots.find((s) => s.id === id);
  if (!slot) throw new Error(`no slot ${id}`);
  slot.target = null;
  // Open connections of the session (a stream) are not cut here: they end with their test server.
  const marker = slot.dead ? null : await sendMarker(slot);
  if (!marker) {
    slot.dead = true;
    throw new Error(`the Prism of slot ${id} stopped answering; it logged:\n${slot.output.slice(slot.start).slice(-3000)}`);
  }
  const upTo = slot.output.lastIndexOf('\n', slot.output.indexOf(marker, slot.start));
  const output = slot.output.slice(slot.start, Math.max(slot.start, upTo));
  slot.output = '';
  slot.busy = false;
  return { output };
}

function killAll() {
  for (const slot of slots) {
    try {
      process.kill(-slot.child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

const control = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', async () => {
    try {
      const input = JSON.parse(body || '{}');
      const result = req.url === '/attach' ? await attach(input) : req.url === '/detach' ? await detach(input) : null;
      if (!result) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error && error.stack ? error.stack : error));
    }
  });
});
// The test files' fetch keeps its connection to the hub alive between a file's attach and detach: the default 5 s
// idle close raced a worker's next attach on a loaded machine (`other side closed`, a whole file failed in CI).
control.keepAliveTimeout = 0;
control.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${control.address().port}\n`));

// The hub lives as long as the jest run that started it: its stdin closes when that process ends, however it ends.
process.stdin.resume();
process.stdin.on('end', () => {
  killAll();
  process.exit(0);
});
process.on('SIGTERM', () => {
  killAll();
  process.exit(0);
});
