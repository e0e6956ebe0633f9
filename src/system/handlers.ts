import type { Db } from '../db/database';
import type { HandlerMap } from '../core/operation';
import { PreSerializedJson, TextBody } from '../core/operation';
import { EncodedForms } from '../core/contentCoding';
import { openApiDocument } from '../core/openapiDocument';
import { apiDocsForms, apiDocsHtml, apiDocsSecurityHeaders } from './docs';
import { serviceVersion } from './version';

type DatabaseCheck = { status: 'ok' | 'unavailable' | 'shutting-down'; latencyMs: number | null };

async function checkDatabase(db: Db): Promise<DatabaseCheck> {
  const started = process.hrtime.bigint();
  try {
    await db.raw('select 1');
    return { status: 'ok', latencyMs: Number(process.hrtime.bigint() - started) / 1e6 };
  } catch {
    return { status: 'unavailable', latencyMs: null };
  }
}

/** The document as sent, serialized once, and its compressed forms (HTTP-7). */
let openApiJson: Buffer | undefined;
const openApiBytes = () => (openApiJson ??= Buffer.from(JSON.stringify(openApiDocument)));
const openApiForms = new EncodedForms(openApiBytes);

export const systemHandlers = {
  async getLiveness(_input, ctx) {
    const database = await checkDatabase(ctx.db);
    const ok = database.status === 'ok';
    return { status: ok ? 200 : 503, body: { status: ok ? 'ok' : 'unavailable', checks: { database } } };
  },

  async getReadiness(_input, ctx) {
    const database: DatabaseCheck = ctx.lifecycle.shuttingDown
      ? { status: 'shutting-down', latencyMs: null }
      : await checkDatabase(ctx.db);
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
