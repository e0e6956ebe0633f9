/**
 * Typed HTTP client for the Tessera API, generated from the OpenAPI document (generated/api.d.ts) through
 * openapi-fetch. Paths, path/query parameters, request bodies and response bodies are all checked by tsc:
 *
 *   const tessera = createTesseraClient({ baseUrl: 'http://localhost:7575', apiKey: process.env.TESSERA_API_KEY });
 *   const { data, error, response } = await tessera.GET('/api/users');
 *   await tessera.DELETE('/api/users/{userId}', { params: { path: { userId } } });
 *
 * Every call resolves to `{ data, error, response }`: `data` is the typed 2xx body, `error` the typed error
 * body (`{message, code, data}`) of a declared 4xx/5xx.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from '../../generated/api';

export type { components, operations, paths };
export type TesseraClient = Client<paths>;
export type ErrorBody = components['schemas']['Error'];

export interface TesseraClientOptions {
  /** Origin of the instance, e.g. `http://localhost:7575` (paths already start with `/api`). */
  baseUrl: string;
  /** `<id>.<token>`, sent in the `ApiKey` header on every request. */
  apiKey?: string;
  /** A fetch implementation (defaults to the global fetch). */
  fetch?: (input: Request) => Promise<Response>;
  /** Extra headers sent on every request. */
  headers?: Record<string, string>;
}

export function createTesseraClient(options: TesseraClientOptions): TesseraClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers.ApiKey = options.apiKey;
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
