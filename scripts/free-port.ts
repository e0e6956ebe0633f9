/**
 * A free TCP port on 127.0.0.1 for a child process (a Tessera instance, Prism, nginx) to listen on.
 *
 * Not the kernel's `listen(0)` choice: that is a port of the ephemeral range, which the kernel also hands out as the
 * source port of outgoing connections, and a test starting instances opens many (database pools). Between our check and
 * the child's listen, a connection could take the port and the child would exit with EADDRINUSE (seen once in CI: an
 * instance that "exited while starting"). Ports below the ephemeral range are never taken that way. A port is handed out
 * at most once per process; a random start keeps parallel test workers apart.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const handedOut = new Set<number>();

function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(low) ? low : 32768;
  } catch {
    return 32768;
  }
}

function bindable(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as { port: number }).port;
      server.close(() => resolve(bound));
    });
  });
}

export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  const low = Math.max(1024, high - 12_000);
  if (high - low >= 1000) {
    for (let attempt = 0; attempt < 200; attempt++) {
      const candidate = low + Math.floor(Math.random() * (high - low));
      if (handedOut.has(candidate)) continue;
      if ((await bindable(candidate)) !== null) {
        handedOut.add(candidate);
        return candidate;
      }
    }
  }
  const port = await bindable(0);
  if (port === null) throw new Error('no free port on 127.0.0.1');
  handedOut.add(port);
  return port;
}
