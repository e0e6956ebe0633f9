import type { Db } from '../db/database';
import type { HandlerMap } from '../core/operation';
import { PreSerializedJson, TextBody } from '../core/operation';
import { EncodedForms } from '../core/contentCoding';
import { openApiDocument } from '../core/openapiDocument';
import { apiDocsForms, apiDocsHtml, apiDocsSecurityHeaders } from './docs';
import { serviceVersion } from './version';

type DatabaseCheck = { status: 'ok' | 'unavailable' | 'shutting-down'; latencyMs: number | null };

/** `select 1`, given up after `timeoutMs` (DB-1): a database that does not answer is unavailable, not awaited. */
async function checkDatabase(db: Db, timeoutMs: number): Promise<DatabaseCheck> {
  const started = process.hrtime.bigint();
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const answer = await Promise.race([db.raw('select 1'), outOfTime]);
    if (answer === 'timeout') return { status: 'unavailable', latencyMs: null };
    return { status: 'ok', latencyMs: Number(process.hrtime.bigint() - started) / 1e6 };
  } catch {
    return { status: 'unavailable', latencyMs: null };
  } finally {
    clearTimeout(timer);
  }
}

/** The document as sent, serialized once, and its compressed forms (HTTP-7). */
let openApiJson: Buffer | undefined;
const openApiBytes = () => (openApiJson ??= Buffer.from(JSON.stringify(openApiDocument)));
const openApiForms = new EncodedForms(openApiBytes);

export const systemHandlers = {
  /** DB-2: the process serves requests; the database is readiness's concern (an outage must not restart instances). */
  async getLiveness() {
    return { status: 200, body: { status: 'ok' } };
  },

  async getReadiness(_input, ctx) {
    const database: DatabaseCheck = ctx.lifecycle.shuttingDown
      ? { status: 'shutting-down', latencyMs: null }
      : await checkDatabase(ctx.db, ctx.config.readyTimeoutMs);
    const ok = ctx.lifecycle.ready && database.status === 'ok';
    return { status: ok ? 200 : 503, body: { status: ok ? 'ok' : 'unavailable', checks: { database } } };
  },

  async getInfo() {
    return { status: 200, body: { version: serviceVersion } };
  },

  async getOpenApiDocument() {
    return { status: 200, body: new PreSerializedJson(openApiBytes(), openApiForms) as never };
  },

  async getApiDocs() {
    return {
      status: 200,
      body: new TextBody<string>(apiDocsHtml(), 'text/html; charset=utf-8', apiDocsForms),
      headers: { 'Cache-Control': 'public, max-age=300', ...apiDocsSecurityHeaders() },
    };
  },
} satisfies Partial<HandlerMap>;
