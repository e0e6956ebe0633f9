/**
 * A local HTTP server answering fixed routes (a static .ics, feeds, a recorded Open-Meteo answer) for the live-data
 * clients' tests, recording the requests it was sent.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Route {
  status?: number;
  headers?: Record<string, string>;
  body: string | Buffer | (() => string | Buffer);
}

export interface HttpFixture {
  url: string;
  requests: { path: string; headers: IncomingHttpHeaders }[];
  set(path: string, route: Route): void;
  close(): Promise<void>;
}

export async function startHttpFixture(routes: Record<string, Route> = {}): Promise<HttpFixture> {
  const table = new Map(Object.entries(routes));
  const requests: HttpFixture['requests'] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fixture');
    requests.push({ path: `${url.pathname}${url.search}`, headers: request.headers });
    const route = table.get(url.pathname);
    if (!route) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const body = typeof route.body === 'function' ? route.body() : route.body;
    response.writeHead(route.status ?? 200, route.headers ?? {}).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    set: (path, route) => table.set(path, route),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
