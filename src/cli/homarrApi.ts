/**
 * Reads a running Homarr v1 over its API for `tessera convert homarr --url <homarr> --api-key <key>` (CONV-7): the
 * board list (`GET /api/boards`), each board's document (tRPC `board.getBoardByName`), the apps (`GET /api/apps`) and
 * the integrations (tRPC `integration.all`, which carries no secrets), with the key in Homarr's `ApiKey` header. Only
 * reads. Answers the texts the converter reads, by the file names of `homarrApiFiles`, with literal secrets (values of
 * secret-named fields, such as a widget's `apiKey` option) already redacted; nothing is written here (the caller keeps
 * them on disk once the conversion succeeded).
 */
import { convertLimits, homarrApiFiles, redactSecrets } from '../convert';
// CONV-9: the answer read as it streams in, given up past the cap (the one capped reader, OUT-1).
import { readCappedText } from '../outbound/fetch';

/** A failure to read the Homarr instance: one line naming the request and what came back. */
export class HomarrReadError extends Error {}

/** What was read: the texts by file name, and the request each file holds the answer of (for error messages). */
export interface HomarrAnswers {
  files: Record<string, string>;
  requests: Record<string, string>;
}

/** CONV-9: how long one request may take and how large one answer may be, by default (`--timeout`, `--max-answer-bytes`). */
export const homarrReadDefaults = { timeoutMs: 30_000, maxAnswerBytes: 16 * 1024 * 1024 };

export interface HomarrReadBounds {
  /** Milliseconds one request may take, its whole answer read included. */
  timeoutMs: number;
  /** Bytes of one answer's body; a larger one is refused without being read further. */
  maxAnswerBytes: number;
}

export async function readHomarr(baseUrl: string, apiKey: string, fetchImpl: typeof fetch = fetch, bounds: HomarrReadBounds = homarrReadDefaults): Promise<HomarrAnswers> {
  let base: URL;
  try {
    base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  } catch {
    throw new HomarrReadError(`--url ${baseUrl}: not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new HomarrReadError(`--url ${baseUrl}: not an http(s) URL`);

  const get = async (pathAndQuery: string, shown: string): Promise<unknown> => {
    const url = new URL(pathAndQuery, base);
    // CONV-9: one deadline for the request and its whole answer; a silent server is given up on, never waited for.
    const signal = AbortSignal.timeout(bounds.timeoutMs);
    const failed = (error: unknown): HomarrReadError => {
      if (signal.aborted) return new HomarrReadError(`homarr: ${shown}: no complete answer within ${bounds.timeoutMs / 1000} s (--timeout)`);
      return new HomarrReadError(`homarr: ${shown}: ${(error as Error).message}${(error as { cause?: Error }).cause ? ` (${(error as { cause: Error }).cause.message})` : ''}`);
    };
    let response: Response;
    let read: Awaited<ReturnType<typeof readCappedText>>;
    try {
      response = await fetchImpl(url, { headers: { ApiKey: apiKey, Accept: 'application/json' }, redirect: 'error', signal });
      read = await readCappedText(response, bounds.maxAnswerBytes);
    } catch (error) {
      throw failed(error);
    }
    if ('tooLarge' in read) throw new HomarrReadError(`homarr: ${shown} answered more than ${bounds.maxAnswerBytes} bytes (--max-answer-bytes): not read`);
    const text = read.text;
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new HomarrReadError(`homarr: ${shown} answered ${response.status} with a body that is not JSON: is ${base.href} a Homarr v1?`);
    }
    if (!response.ok) {
      const said = messageOf(body);
      const hint = response.status === 401 || response.status === 403 ? ' (check --api-key: an API key of a Homarr user who can see the boards, apps and integrations)' : '';
      throw new HomarrReadError(`homarr: ${shown} answered ${response.status}${said ? `: ${said}` : ''}${hint}`);
    }
    return body;
  };
  const trpc = async (procedure: string, input?: unknown): Promise<unknown> => {
    const query = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
    const body = await get(`api/trpc/${procedure}${query}`, `tRPC ${procedure}`);
    const data = (body as { result?: { data?: { json?: unknown } } } | undefined)?.result?.data;
    if (!data || !('json' in data)) throw new HomarrReadError(`homarr: tRPC ${procedure} answered without result.data.json: is ${base.href} a Homarr v1?`);
    return data.json;
  };

  const list = await get('api/boards', 'GET /api/boards');
  if (!Array.isArray(list)) throw new HomarrReadError(`homarr: GET /api/boards did not answer a list: is ${base.href} a Homarr v1?`);
  const names = list.map((entry) => (entry && typeof entry === 'object' ? (entry as { name?: unknown }).name : undefined)).filter((name): name is string => typeof name === 'string');
  // The converter reads at most convertLimits.files files: the apps, the integrations and the boards.
  if (names.length > convertLimits.files - 2) throw new HomarrReadError(`homarr: ${names.length} boards; one conversion takes at most ${convertLimits.files - 2}`);
  const files: Record<string, string> = {};
  const requests: Record<string, string> = {};
  const keep = (file: string, request: string, value: unknown) => {
    files[file] = `${JSON.stringify(redactSecrets(value), null, 2)}\n`;
    requests[file] = request;
  };
  for (const [index, name] of names.entries()) keep(homarrApiFiles.board(index), `tRPC board.getBoardByName ${JSON.stringify({ name })}`, await trpc('board.getBoardByName', { name }));
  keep(homarrApiFiles.apps, 'GET /api/apps', await get('api/apps', 'GET /api/apps'));
  keep(homarrApiFiles.integrations, 'tRPC integration.all', await trpc('integration.all'));
  return { files, requests };
}

function messageOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const record = body as { message?: unknown; error?: { json?: { message?: unknown } } };
  const message = typeof record.message === 'string' ? record.message : record.error?.json?.message;
  return typeof message === 'string' ? message.slice(0, 300) : null;
}
