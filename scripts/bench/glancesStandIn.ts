/**
 * A local stand-in for Glances' v3 REST API (one node:http server), for the benchmarks of live widget data: it answers
 * `/<integration>/api/3/<plugin>` for the plugins the systemResources widget reads, after `delayMs`, and reports each
 * fetch of an integration (its `cpu` request) to `onFetch`. Used by scripts/bench/widgetData.ts and compare.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

function answer(plugin: string): unknown {
  switch (plugin) {
    case 'cpu': return { total: 10 + Math.random() * 50, cpucore: 2 };
    case 'core': return { phys: 2, log: 2 };
    case 'mem': return { total: 8e9, used: 2e9, percent: 25 };
    case 'load': return { min1: 0.5, min5: 0.4, min15: 0.3 };
    case 'uptime': return '3 days, 1:02:03';
    default: return null;
  }
}

export async function startGlancesStandIn(options: { delayMs?: number; onFetch?: (integration: string) => void } = {}): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const [, integration, , , plugin] = (req.url ?? '').split('/');
    if (plugin === 'cpu') options.onFetch?.(integration);
    setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer(plugin))), options.delayMs ?? 20);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
