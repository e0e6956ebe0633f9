import http from 'node:http';
import type express from 'express';

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
 * objects share their hidden classes and express's setPrototypeOf changes nothing.
 *
 * The prototypes are those of classes extending node's: the app's request and response prototypes become the
 * classes' (with express's methods and the app's own properties on them). V8 sizes the instances of a subclass as
 * node's own, so their properties stay fast and shared. An ES5-style function calling node's constructor on `this`
 * (the earlier way) made every request and response a dictionary of its properties instead: 1.6 and 3.1 KB of them
 * per object, held for as long as a response is open (an event stream holds them for hours).
 */
export function createHttpServer(app: express.Express): http.Server {
  class AppRequest extends http.IncomingMessage {}
  class AppResponse extends http.ServerResponse {}
  app.request = adoptPrototype(AppRequest.prototype, app.request) as express.Request;
  app.response = adoptPrototype(AppResponse.prototype, app.response) as express.Response;
  return http.createServer({ maxHeaderSize, IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
}

/** `target` takes `source`'s place: the same prototype above it and the same own properties. */
function adoptPrototype(target: object, source: object): object {
  Object.setPrototypeOf(target, Object.getPrototypeOf(source));
  Object.defineProperties(target, Object.getOwnPropertyDescriptors(source));
  return target;
}
