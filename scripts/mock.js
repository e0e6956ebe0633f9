/**
 * `npm run mock`: a mock of Tessera's three surfaces on 127.0.0.1, port 4010 unless `--port <n>` (`-p <n>`,
 * `--port=<n>`) or MOCK_PORT says otherwise (the flag wins); `--host` likewise. Other arguments go to Prism as they are
 * (`npm run mock -- --port 4020 --dynamic`).
 *
 * REST is Prism's mock of generated/openapi.json (MOCK-1). tRPC and MCP (MOCK-7) are served by the server's own
 * modules (build/trpc, build/mcp: the compiled src/, RUN-1), whose procedures and tools call REST operations through
 * `RequestContext.invoke`; here that invoke sends the operation's request to Prism, so a tRPC call or an MCP tool call
 * answers Prism's example of the REST operation it stands for, in the tRPC or MCP envelope, and `tools/list` is the
 * server's tool table. Requests with a `Prefer` header (a documented error on request, MOCK-1), MCP requests without
 * credentials (the documented 401) and requests the server's modules would not parse go to Prism as they are.
 *
 * Prism runs as a child process on a free local port behind this front; its output is printed with the front's
 * address, and stopping this process (or its process group) stops both.
 */
'use strict';
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const specFile = path.join(root, 'generated/openapi.json');
const defaults = { port: process.env.MOCK_PORT || '4010', host: process.env.MOCK_HOST || '127.0.0.1' };

/** `{port, host, rest}` from the arguments after `npm run mock --`. */
function mockArguments(argv, env = defaults) {
  const options = { port: env.port, host: env.host };
  const rest = [];
  for (let i = 0; i < argv.length; i += 1) {
    const argument = argv[i];
    const match = /^(?:--(port|host)|-(p|h))(?:=(.*))?$/.exec(argument);
    if (!match) {
      rest.push(argument);
      continue;
    }
    const name = match[1] ?? (match[2] === 'p' ? 'port' : 'host');
    const value = match[3] ?? argv[++i];
    if (value === undefined || value === '') throw new Error(`${argument} needs a value`);
    options[name] = value;
  }
  if (!/^\d+$/.test(options.port) || Number(options.port) > 65535) throw new Error(`not a port: ${options.port} (use --port <n> or MOCK_PORT)`);
  return { ...options, rest };
}

/** The server's tRPC and MCP modules, compiled (build/ is rebuilt first when src/ changed). */
function serverModules() {
  require('./build-server').ensureServerBuilt();
  const build = (file) => require(path.join(root, 'build', file));
  return {
    trpc: build('trpc/handlers.js'),
    procedures: build('trpc/procedures.js').procedures,
    mcp: build('mcp/handlers.js'),
    errors: build('core/errors.js'),
  };
}

/** operationId -> `{method, path}` of the document. */
function operationTable(document) {
  const table = new Map();
  for (const [route, item] of Object.entries(document.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete']) {
      if (item[method]?.operationId) table.set(item[method].operationId, { method: method.toUpperCase(), path: route });
    }
  }
  return table;
}

const errorCodeOfStatus = { 400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 405: 'METHOD_NOT_SUPPORTED', 409: 'CONFLICT', 412: 'PRECONDITION_FAILED', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 429: 'TOO_MANY_REQUESTS', 503: 'SERVICE_UNAVAILABLE' };

/** Credentials a request carries, passed on to Prism with every operation it runs (Prism checks that they are there). */
const credentialHeaders = ['apikey', 'authorization', 'cookie'];
const hasCredentials = (headers) => credentialHeaders.some((name) => headers[name] !== undefined);

/**
 * RequestContext.invoke over Prism: the operation's request (path parameters, query, JSON body, the caller's
 * credentials) sent to the Prism mock; its example as the operation's answer, an error answer thrown as the ApiError
 * the server would throw (the `{message, code, data}` of the documented example).
 */
function prismInvoke({ prismUrl, operations, errors, headers }) {
  return async (operationId, input = {}) => {
    const operation = operations.get(operationId);
    if (!operation) throw new Error(`No operation ${operationId}`);
    const route = operation.path.replace(/\{([^}]+)\}/g, (_all, name) => encodeURIComponent(input.params?.[name] ?? ''));
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(input.query ?? {})) if (value !== undefined) query.append(name, String(value));
    const sent = { accept: 'application/json' };
    for (const name of credentialHeaders) if (headers[name] !== undefined) sent[name] = headers[name];
    if (input.body !== undefined) sent['content-type'] = 'application/json';
    const response = await fetch(`${prismUrl}${route}${query.size > 0 ? `?${query}` : ''}`, {
      method: operation.method,
      headers: sent,
      body: input.body === undefined ? undefined : JSON.stringify(input.body),
    });
    const text = await response.text();
    let body;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    if (response.status < 400) return { status: response.status, body, headers: {} };
    const known = [...Object.values(errorCodeOfStatus), 'INTERNAL_SERVER_ERROR'];
    const code = known.includes(body?.code) ? body.code : (errorCodeOfStatus[response.status] ?? 'INTERNAL_SERVER_ERROR');
    const message = typeof body?.message === 'string' ? body.message : (body?.detail ?? body?.title ?? `HTTP ${response.status}`);
    throw new errors.ApiError(code, message, typeof body?.data === 'object' && body.data !== null ? body.data : {});
  };
}

const silentLogger = { error() {}, warn() {}, info() {}, debug() {}, child: () => silentLogger };

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * MOCK-8: the 400 each operation declares, as `{method, pattern, status, body}` by path template: what the front answers
 * where Prism answers a request it finds invalid with the operation's 422 (Prism takes a declared 422 before the 400
 * for any invalid request; the 422 of these operations is IDEM-3's, and the server answers such a request 400).
 */
function badRequestAnswers(document) {
  const resolve = (value) => {
    let current = value;
    while (current && typeof current.$ref === 'string') current = current.$ref.slice(2).split('/').reduce((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    return current;
  };
  const answers = [];
  for (const [route, item] of Object.entries(document.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete']) {
      const responses = item[method]?.responses;
      if (!responses?.['422'] || !responses['400']) continue;
      const content = resolve(responses['400'])?.content?.['application/json'];
      const body = content?.example ?? Object.values(content?.examples ?? {})[0]?.value;
      const pattern = new RegExp(`^${route.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      answers.push({ method: method.toUpperCase(), pattern, body });
    }
  }
  return answers;
}

/** Whether a request asks the mock for one status (`Prefer: code=<status>`). */
const prefersCode = (req, status) => new RegExp(`(?:^|[;,\\s])code=${status}\\b`).test(String(req.headers.prefer ?? ''));

/** The request passed to Prism as it is (with its body when the front read it already); MOCK-8's 400 for its 422. */
function forward(prismUrl, req, res, body, badRequests = []) {
  const target = new URL(prismUrl);
  const upstream = http.request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
    (answer) => {
      if (answer.statusCode === 422 && !prefersCode(req, 422)) {
        const pathname = new URL(req.url ?? '/', 'http://mock').pathname;
        const declared = badRequests.find((candidate) => candidate.method === req.method && candidate.pattern.test(pathname));
        if (declared?.body) {
          answer.resume();
          return sendJson(res, 400, declared.body);
        }
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: `The Prism mock did not answer: ${error.message}`, code: 'INTERNAL_SERVER_ERROR', data: {} }));
  });
  if (body) upstream.end(body);
  else req.pipe(upstream);
}

function sendJson(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const isJson = (contentType) => /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType ?? '');

/**
 * The front's request handler (MOCK-7). `modules` are the server's (serverModules()), `prismUrl` where Prism
 * listens.
 */
function createFront({ prismUrl, modules, document }) {
  const operations = operationTable(document);
  const badRequests = badRequestAnswers(document);
  const { trpc, mcp, errors, procedures } = modules;
  // The one procedure that is no REST operation alone: the caller's home board is looked up in the database, which
  // the mock has none of, so it reads the board of the document's example id.
  procedures['board.getHomeBoard'] = {
    type: 'query',
    run: async (ctx) => (await ctx.invoke('getBoard', { params: { id: document.components.schemas.Id.example } })).body,
  };
  const contextOf = (req, surface) => ({
    db: undefined,
    // AGENT-2: the mock has no database to keep proposals in: its MCP tools answer their operations' examples (write mode).
    config: { mcpMode: 'write' },
    logger: silentLogger,
    requestId: `mock-${Date.now().toString(36)}`,
    principal: null,
    clientIp: req.socket.remoteAddress ?? '127.0.0.1',
    headers: req.headers,
    lifecycle: { ready: true, shuttingDown: false },
    surface,
    invoke: prismInvoke({ prismUrl, operations, errors, headers: req.headers }),
  });

  async function serveTrpc(req, res, url) {
    const procedurePath = url.pathname.slice('/api/trpc/'.length);
    let names;
    try {
      names = decodeURIComponent(procedurePath);
    } catch {
      return forward(prismUrl, req, res);
    }
    if (!/^[A-Za-z0-9_.,]{1,2000}$/.test(names) || (req.method !== 'GET' && req.method !== 'POST')) return forward(prismUrl, req, res);
    const query = Object.fromEntries(url.searchParams);
    const ctx = contextOf(req, 'trpc');
    try {
      if (req.method === 'GET') {
        const answer = await trpc.trpcHandlers.trpcQuery({ params: { procedures: names }, query, body: undefined }, ctx);
        return sendJson(res, answer.status, answer.body);
      }
      const raw = await readBody(req);
      let body;
      try {
        body = raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'));
      } catch {
        return forward(prismUrl, req, res, raw);
      }
      if (raw.length > 0 && !isJson(req.headers['content-type'])) return forward(prismUrl, req, res, raw);
      const answer = await trpc.trpcHandlers.trpcMutation({ params: { procedures: names }, query, body }, ctx);
      return sendJson(res, answer.status, answer.body);
    } catch (thrown) {
      if (!(thrown instanceof errors.ApiError)) throw thrown;
      return sendJson(res, thrown.status, trpc.trpcErrorFormat.body(thrown, url.pathname));
    }
  }

  async function serveMcp(req, res) {
    const raw = await readBody(req);
    let body;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return forward(prismUrl, req, res, raw);
    }
    const { body: takeover } = await mcp.mcpHandlers.mcpRequest(undefined, contextOf(req, 'mcp'));
    await takeover.write(req, res, body);
  }

  return async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://mock');
      const prefersExample = req.headers.prefer !== undefined;
      if (!prefersExample && url.pathname.startsWith('/api/trpc/')) return await serveTrpc(req, res, url);
      if (!prefersExample && (url.pathname === '/api/mcp' || url.pathname === '/api/mcp/mcp') && req.method === 'POST' && hasCredentials(req.headers)) {
        return await serveMcp(req, res);
      }
      return forward(prismUrl, req, res, undefined, badRequests);
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { message: `Mock front failed: ${error.message}`, code: 'INTERNAL_SERVER_ERROR', data: {} });
      else res.end();
    }
  };
}

/** A free TCP port on 127.0.0.1 for Prism behind the front. */
function freeLocalPort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function main(parsed) {
  const modules = serverModules();
  const document = require(specFile);
  const prismPort = await freeLocalPort();
  const prismUrl = `http://127.0.0.1:${prismPort}`;
  const front = http.createServer(createFront({ prismUrl, modules, document }));
  await new Promise((resolve, reject) => {
    front.once('error', reject);
    front.listen(Number(parsed.port), parsed.host, resolve);
  });
  const publicUrl = `http://${parsed.host}:${parsed.port}`;
  const prism = require.resolve('@stoplight/prism-cli/dist/index.js', { paths: [root] });
  const child = spawn(process.execPath, [prism, 'mock', specFile, '--host', '127.0.0.1', '--port', String(prismPort), ...parsed.rest], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Prism's lines name the front's address, which serves every route it lists.
  const relay = (stream, out) => {
    let pending = '';
    stream.on('data', (chunk) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        out.write(`${line.split(prismUrl).join(publicUrl)}\n`);
        if (/Prism is listening/.test(line)) out.write(`tRPC (${publicUrl}/api/trpc/…) and MCP (${publicUrl}/api/mcp) calls answer the examples of the REST operations they stand for\n`);
      }
    });
  };
  relay(child.stdout, process.stdout);
  relay(child.stderr, process.stderr);
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.on('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      stop();
      process.exit(0);
    });
  }
  child.on('exit', (code, signal) => {
    front.close();
    process.exit(code ?? (signal ? 1 : 0));
  });
}

if (require.main === module) {
  let parsed;
  try {
    parsed = mockArguments(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`npm run mock: ${error.message}\n`);
    process.exit(2);
  }
  main(parsed).catch((error) => {
    process.stderr.write(`npm run mock: ${error.stack ?? error}\n`);
    process.exit(1);
  });
}

module.exports = { mockArguments, createFront, serverModules, freeLocalPort };
