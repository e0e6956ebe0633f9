import http from 'node:http';
import type { Socket } from 'node:net';
import type express from 'express';

type Constructor<T> = (this: T, ...args: any[]) => void;

/**
 * The largest request head (request line and headers) accepted; Node's default is 16 KiB. The longest query the
 * contract allows (a tRPC `input` of 4096 characters, up to 12 bytes each once URL-encoded) must fit: a larger head
 * is Node's own 431 with no body, which no operation declares (HTTP-10).
 */
const maxHeaderSize = 64 * 1024;

/**
 * The node:http server for an express app, whose requests and responses are created with the app's prototypes.
 *
 * Express re-parents every request and response with Object.setPrototypeOf, and V8 then gives each of them a hidden
 * class of its own: every property access on them, in node's HTTP code as much as in express and ours, misses its
 * inline cache (about a hundred misses per request, measured with --log-ic). Created with the right prototypes, the
 * objects share their hidden classes and express's setPrototypeOf changes nothing. Node's own constructors are
 * ES5-style functions, so a subclass is a function that calls them on `this` (should a later Node make them classes,
 * the plain server is used).
 */
export function createHttpServer(app: express.Express): http.Server {
  if (isClass(http.IncomingMessage) || isClass(http.ServerResponse)) return http.createServer({ maxHeaderSize }, app);
  const incomingMessage = http.IncomingMessage as unknown as Constructor<http.IncomingMessage>;
  const serverResponse = http.ServerResponse as unknown as Constructor<http.ServerResponse>;
  function AppRequest(this: http.IncomingMessage, socket: Socket): void {
    incomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: http.ServerResponse, req: http.IncomingMessage, options?: unknown): void {
    serverResponse.call(this, req, options);
  }
  AppResponse.prototype = app.response;
  return http.createServer(
    {
      maxHeaderSize,
      IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof http.ServerResponse,
    },
    app,
  );
}

function isClass(constructor: unknown): boolean {
  return typeof constructor === 'function' && /^class\b/.test(Function.prototype.toString.call(constructor));
}
