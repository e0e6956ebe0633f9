/**
 * OUT-1: the one server-side fetcher for requests Tessera makes on a user's behalf (widget data, feeds; pings, webhooks
 * and the Homarr reader are to move onto it). Every request is bounded: one deadline for the request and its whole
 * answer, a cap on the answer's bytes (read as it streams, given up as soon as it passes the cap), and redirects
 * followed only within the origin asked (at most 5), so a service cannot bounce the server to another host.
 * Failures are `OutboundError`s with a reason and a message that never carries the request's headers or body
 * (where credentials live), so callers may show the message to a viewer.
 */

import { request as httpRequest } from 'node:http';

export type OutboundFailure = 'timeout' | 'unreachable' | 'too-large' | 'redirect' | 'invalid-url';

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Milliseconds for the request and its whole answer. */
  timeoutMs: number;
  /** Bytes of the answer's body. */
  maxBytes: number;
}

export interface OutboundAnswer {
  status: number;
  headers: Headers;
  /** The final URL, after same-origin redirects. */
  url: string;
  text: string;
}

/** What a client of a service is handed to make its requests (a bounded `outboundFetch`, possibly rate-limited). */
export type OutboundFetch = (url: string | URL, request: OutboundRequest) => Promise<OutboundAnswer>;

const maxRedirects = 5;

/** The origin of `url` for messages: never its path, query or user info (they can carry tokens). */
export function shownOrigin(url: URL): string {
  return url.origin;
}

export const outboundFetch: OutboundFetch = async (target, request) => {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new OutboundError('invalid-url', 'not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('invalid-url', `${url.protocol} is not http(s)`);
  const origin = url.origin;
  const signal = AbortSignal.timeout(request.timeoutMs);
  let method = request.method ?? 'GET';
  let body = request.body;
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await fetch(url, { method, headers: request.headers, body, redirect: 'manual', signal });
    } catch (error) {
      if (signal.aborted) throw new OutboundError('timeout', `${shownOrigin(url)}: no answer within ${request.timeoutMs / 1000} s`);
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new OutboundError('unreachable', `${shownOrigin(url)}: unreachable${cause ? ` (${cause})` : ''}`);
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel().catch(() => undefined);
      const next = new URL(location, url);
      if (next.origin !== origin) throw new OutboundError('redirect', `${shownOrigin(url)}: redirected to another origin (${shownOrigin(next)}), not followed`);
      if (hop + 1 >= maxRedirects) throw new OutboundError('redirect', `${shownOrigin(url)}: more than ${maxRedirects} redirects`);
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      url = next;
      continue;
    }
    try {
      const read = await readCappedText(response, request.maxBytes);
      if ('tooLarge' in read) throw new OutboundError('too-large', `${shownOrigin(url)}: answer larger than ${request.maxBytes} bytes`);
      return { status: response.status, headers: response.headers, url: url.toString(), text: read.text };
    } catch (error) {
      if (error instanceof OutboundError) throw error;
      if (signal.aborted) throw new OutboundError('timeout', `${shownOrigin(url)}: no complete answer within ${request.timeoutMs / 1000} s`);
      throw new OutboundError('unreachable', `${shownOrigin(url)}: the answer broke off`);
    }
  }
};

/**
 * The body of `response` as text, read as it streams in and given up (the connection cancelled) as soon as it passes
 * `maxBytes`; a declared Content-Length over the cap is refused before anything is read.
 */
export async function readCappedText(response: Response, maxBytes: number): Promise<{ text: string } | { tooLarge: true }> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { tooLarge: true };
  }
  if (!response.body) return { text: '' };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { tooLarge: true };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString('utf8') };
}

/** DOCK-2: `outboundSocketFetch`'s shape: an HTTP request over a Unix socket (`path` is the request target, `/v1.41/…`). */
export type OutboundSocketFetch = (socketPath: string, path: string, request: OutboundRequest) => Promise<OutboundAnswer>;

/**
 * DOCK-2: the same bounds as `outboundFetch` for an HTTP service on a Unix socket (the Docker Engine API at
 * `unix:///…/docker.sock`): one deadline for the request and its whole answer, the answer's bytes capped as they
 * stream in, and no redirect followed (a 3xx is answered as it came: a socket has no origin to stay within). Messages
 * name the socket, never the request's path, headers or body.
 */
export const outboundSocketFetch: OutboundSocketFetch = (socketPath, path, request) =>
  new Promise((resolve, reject) => {
    const shown = `unix:${socketPath}`;
    if (!path.startsWith('/')) {
      reject(new OutboundError('invalid-url', 'a socket request path must start with /'));
      return;
    }
    let settled = false;
    const fail = (error: OutboundError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const req = httpRequest({ socketPath, path, method: request.method ?? 'GET', headers: { host: 'localhost', ...request.headers } }, (res) => {
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > request.maxBytes) {
        fail(new OutboundError('too-large', `${shown}: answer larger than ${request.maxBytes} bytes`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size > request.maxBytes) fail(new OutboundError('too-large', `${shown}: answer larger than ${request.maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', () => fail(new OutboundError('unreachable', `${shown}: the answer broke off`)));
      res.on('aborted', () => fail(new OutboundError('unreachable', `${shown}: the answer broke off`)));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
        }
        resolve({ status: res.statusCode ?? 0, headers, url: `${shown}:${path}`, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    const timer = setTimeout(() => fail(new OutboundError('timeout', `${shown}: no complete answer within ${request.timeoutMs / 1000} s`)), request.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => fail(new OutboundError('unreachable', `${shown}: unreachable${error.code ? ` (${error.code})` : ''}`)));
    req.end(request.body);
  });
