import type http from 'node:http';
import type { Socket } from 'node:net';

/**
 * Graceful close of an HTTP server. Closing the listener at once would reset connections still waiting in the
 * kernel's accept queue, and Node's `server.close()` destroys every accepted connection without a request in
 * progress, even one whose request bytes arrived while the event loop was busy: both would be resets for
 * requests the client already sent. Instead: keep listening for `graceMs` (answers say `Connection: close`, and
 * readiness already reports 503), so that everything already sent is accepted and parsed; then stop accepting,
 * end the connections that are between requests, let every request in progress finish, and cut whatever remains
 * after `timeoutMs`.
 */
export function trackConnections(server: http.Server): { close(graceMs: number, timeoutMs: number): Promise<void> } {
  const connections = new Map<Socket, { active: number; served: number }>();
  let closing = false;

  server.on('connection', (socket: Socket) => {
    connections.set(socket, { active: 0, served: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const state = connections.get(req.socket);
    if (!state) return;
    state.active += 1;
    res.once('close', () => {
      state.active -= 1;
      state.served += 1;
      if (closing && state.active === 0) req.socket.end();
    });
  });

  return {
    async close(graceMs, timeoutMs) {
      closing = true;
      await new Promise((resolve) => setTimeout(resolve, graceMs));
      // setImmediate runs after the poll phase: connections and requests already received are in by then.
      await new Promise((resolve) => setImmediate(resolve));
      server.closeIdleConnections = () => {};
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const [socket, state] of connections) if (state.active === 0) socket.end();
      const cutAll = setTimeout(() => server.closeAllConnections(), timeoutMs);
      await closed;
      clearTimeout(cutAll);
    },
  };
}
