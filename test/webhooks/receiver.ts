import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got: its path, headers and body as sent. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A webhook receiver the tests run (a real node:http server on 127.0.0.1): it keeps every request, and answers each
 * path as `answer` says (by default 204; a list of statuses is answered in turn, its last one from then on).
 */
export async function startReceiver(): Promise<{
  url: (path: string) => string;
  received: Received[];
  on(path: string, statuses: number[]): void;
  at(path: string): Received[];
  stop(): Promise<void>;
}> {
  const received: Received[] = [];
  const plans = new Map<string, number[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
      received.push({ path, headers, body: Buffer.concat(chunks).toString('utf8') });
      const plan = plans.get(path) ?? [204];
      const status = plan.length > 1 ? plan.shift()! : plan[0]!;
      res.statusCode = status;
      res.end(status >= 400 ? 'no' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    on: (path, statuses) => void plans.set(path, [...statuses]),
    at: (path) => received.filter((r) => r.path === path),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
