import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createHttpServer } from '../../src/http/httpServer';

/**
 * src/http/httpServer.ts creates requests and responses with the express app's prototypes, so that express does
 * not re-parent them (which costs every request its own hidden class in V8). What the app sees must not change:
 * express's request and response API, and node's classes underneath.
 */
describe('the HTTP server of an express app', () => {
  let server: http.Server;
  let baseUrl: string;
  /** Checked in a listener that runs before express's, so before express could re-parent anything itself. */
  const seen: { requestProto: boolean; responseProto: boolean; incoming: boolean; outgoing: boolean }[] = [];

  beforeAll(async () => {
    const app = express();
    app.get('/echo', (req, res) => {
      res.status(201).json({ path: req.path, query: req.query, ip: typeof req.ip, header: req.get('x-probe') ?? null });
    });
    server = createHttpServer(app);
    server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      seen.push({
        requestProto: Object.getPrototypeOf(req) === app.request,
        responseProto: Object.getPrototypeOf(res) === app.response,
        incoming: req instanceof http.IncomingMessage,
        outgoing: res instanceof http.ServerResponse,
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('creates requests and responses with the app\'s prototypes, on node classes, and express works on them', async () => {
    const response = await fetch(`${baseUrl}/echo?a=1`, { headers: { 'X-Probe': 'yes' } });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ path: '/echo', query: { a: '1' }, ip: 'string', header: 'yes' });
    expect(seen.at(-1)).toEqual({ requestProto: true, responseProto: true, incoming: true, outgoing: true });
  });

  it('serves keep-alive requests on one connection the same way', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (query: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        http
          .get(`${baseUrl}/echo?n=${query}`, { agent }, (res) => {
            let body = '';
            res.on('data', (chunk) => (body += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          })
          .on('error', reject);
      });
    const answers = await Promise.all(['1', '2', '3'].map(get));
    agent.destroy();
    expect(answers.map((answer) => [answer.status, JSON.parse(answer.body).query.n])).toEqual([
      [201, '1'],
      [201, '2'],
      [201, '3'],
    ]);
  });
});
