/**
 * The widget-data service (WDATA-*): the binding check, the shared cache and the fan-out to the services. Every
 * surface (REST, MCP) calls `readItemData` and `runItemAction`; handlers stay thin.
 *
 * - Binding (WDATA-1..3): a caller who may view the board reads the data of the integrations bound to that item and
 *   nothing else; the board check is the board routes' (404 `Board not found`), the item must be on that board.
 * - Cache (WDATA-6): per upstream (integration or source), widget kind and query, in the database, for the kind's
 *   TTL. A stale or missing entry is fetched by the one caller whose claim the database accepts; the others serve
 *   the previous answer, or, when there is none yet, wait for the claimed fetch (polling with backoff).
 * - Errors (WDATA-4): whatever goes wrong upstream is a result with `status: error` and a readable message that
 *   names no credential; answers are checked against the kind's declared shape (WDATA-7) before they are cached.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../db/database';
import type { Config, LiveDataConfig } from '../../config/config';
import { badRequest, forbidden, notFound } from '../../core/errors';
import { assertBoardAccess } from '../../boards/access';
import { Integration, IntegrationItem, Item } from '../../db/models';
import { preparedStatement } from '../../db/prepared';
import type { Principal } from '../../identity/principal';
import { loadIntegrationAccess } from '../../integrations/access';
import { ServiceError, type ClientContext, type SecretKind } from '../../integrations/clients/types';
import type { SecretCipher } from '../../integrations/secrets/cipher';
import { decryptedSecrets } from '../../integrations/secrets/store';
import { OutboundError, outboundFetch, type OutboundFetch } from '../../outbound/fetch';
import { claimEntry, expireIntegration, readEntries, storeAnswer, type CacheEntry, type CachedAnswer } from './cacheStore';
import { liveKinds } from './kinds';
import { UpstreamLimits } from './limits';
import { hasDeclaredShape } from './shapes';
import type { BoundIntegration, DataSource, LiveKind, WidgetOptions } from './types';

export interface WidgetDataResult {
  integrationId: string | null;
  name: string;
  status: 'ok' | 'error';
  message: string | null;
  fetchedAt: string | null;
  actions: string[];
  data: unknown;
}

export interface WidgetDataEnvelope {
  itemId: string;
  kind: string;
  live: boolean;
  ttlSeconds: number;
  results: WidgetDataResult[];
}

export interface WidgetDataDeps {
  cipher: SecretCipher;
  config: LiveDataConfig;
  /** The instance's configuration, handed to a kind's `resolve` (DOCKER_HOST, …) and the sources' settings (WX-1, FEED-3). */
  appConfig?: Config;
  limits: UpstreamLimits;
  /** The fetcher (outboundFetch; a test or bench may count requests through it). */
  fetch?: OutboundFetch;
  kinds?: ReadonlyMap<string, LiveKind>;
  /**
   * This instance's fetches and waits under way, by cache key: concurrent viewers on one instance share one claim
   * attempt and one wait instead of each polling the database (the database still decides between instances).
   */
  inflight: Map<string, Promise<CachedAnswer>>;
  /**
   * Fresh answers this instance read, kept at most `memoryMs` (and never past their expiry): most reads of a busy
   * item skip the cache query. Short, so a change another instance made (an action, new credentials) shows soon.
   */
  memory: Map<string, { answer: CachedAnswer; until: number }>;
  memoryMs: number;
}

export const liveKindsByWidget: ReadonlyMap<string, LiveKind> = new Map(liveKinds.map((kind) => [kind.widgetKind, kind]));

export function createWidgetDataDeps(cipher: SecretCipher, config: LiveDataConfig, appConfig?: Config): WidgetDataDeps {
  return { cipher, config, appConfig, limits: new UpstreamLimits(config), inflight: new Map(), memory: new Map(), memoryMs: 1000 };
}

const maxMessage = 300;

/** A key of the cache: stable JSON of the query, hashed (the key never holds an option's text, which could be long). */
export function cacheKey(widgetKind: string, upstream: { integrationId: string } | { sourceKey: string }, query: Record<string, unknown>): string {
  const stable = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(stable) : value && typeof value === 'object' ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, stable((value as Record<string, unknown>)[k])])) : value;
  const hash = createHash('sha256').update(JSON.stringify(stable(query))).digest('base64url').slice(0, 22);
  return 'integrationId' in upstream ? `i:${upstream.integrationId}:${widgetKind}:${hash}` : `s:${widgetKind}:${createHash('sha256').update(upstream.sourceKey).digest('base64url').slice(0, 22)}:${hash}`;
}

/** WDATA-4: the viewer's message for a failure: the fetcher's and clients' own messages, else a generic one; never a secret. */
export function failureMessage(error: unknown, secrets: readonly string[]): string {
  let message: string;
  if (error instanceof OutboundError || error instanceof ServiceError) message = error.message;
  else message = 'the service answered something that could not be read';
  for (const secret of secrets) if (secret.length > 0) message = message.split(secret).join('***');
  return message.length > maxMessage ? `${message.slice(0, maxMessage - 1)}…` : message;
}

interface Upstream {
  key: string;
  integrationId: string | null;
  name: string;
  fetch(ctx: ClientContext): Promise<unknown>;
  secrets(): Promise<string[]>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** WDATA-5, WDATA-7: one upstream fetched under the limits and the deadline, its answer checked; never throws. */
async function fetchUpstream(deps: WidgetDataDeps, kind: LiveKind, upstream: Upstream, secretsFor: () => Promise<string[]>): Promise<Omit<CachedAnswer, 'fetchedAt'>> {
  const { timeoutMs, maxBytes } = deps.config;
  const fetcher = deps.fetch ?? outboundFetch;
  const ctx: ClientContext = {
    timeoutMs,
    maxBytes,
    now: () => new Date(),
    ...(deps.appConfig ? { sources: { openMeteoUrl: deps.appConfig.openMeteoUrl, feedAllowLocal: deps.appConfig.feedAllowLocal } } : {}),
    fetch: (url, request) =>
      deps.limits.run(upstream.key, () => fetcher(url, { ...request, timeoutMs: Math.min(request.timeoutMs, timeoutMs), maxBytes: Math.min(request.maxBytes, maxBytes) })),
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ServiceError('failed', `no complete answer within ${(timeoutMs * 2) / 1000} s`)), timeoutMs * 2);
    });
    const data = await Promise.race([upstream.fetch(ctx), deadline]);
    if (!hasDeclaredShape(kind.widgetKind, data)) return { status: 'error', message: 'the service answered data of an unexpected shape', data: null };
    return { status: 'ok', message: null, data };
  } catch (error) {
    return { status: 'error', message: failureMessage(error, await secretsFor().catch(() => [])), data: null };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * WDATA-6: the answer of one upstream through the shared cache: fresh from the cache, or fetched by the one caller
 * whose claim the database accepts; others serve the previous answer or wait for the claimed fetch to land.
 */
function answerOf(db: Db, deps: WidgetDataDeps, kind: LiveKind, upstream: Upstream, known: CacheEntry): Promise<CachedAnswer> {
  if (known.fresh && known.answer) return Promise.resolve(known.answer);
  let pending = deps.inflight.get(upstream.key);
  if (!pending) {
    pending = claimOrWait(db, deps, kind, upstream, known).finally(() => deps.inflight.delete(upstream.key));
    deps.inflight.set(upstream.key, pending);
  }
  return pending;
}

async function claimOrWait(db: Db, deps: WidgetDataDeps, kind: LiveKind, upstream: Upstream, known: CacheEntry): Promise<CachedAnswer> {
  const leaseMs = deps.config.timeoutMs * 2 + 2000;
  const giveUpAt = Date.now() + leaseMs * 2;
  let entry = known;
  let wait = 20;
  for (;;) {
    if (!entry.claimed || !entry.answer) {
      const token = await claimEntry(db, upstream.key, upstream.integrationId, leaseMs);
      if (token) {
        const answer = await fetchUpstream(deps, kind, upstream, upstream.secrets);
        const stored = await storeAnswer(db, upstream.key, token, answer, kind.ttlMs);
        return stored ?? { ...answer, fetchedAt: new Date().toISOString() };
      }
    }
    // Another caller fetches: its previous answer meanwhile, or a wait for the first one.
    if (entry.answer) return entry.answer;
    if (Date.now() > giveUpAt) return { status: 'error', message: 'waiting for the service\'s first answer: try again shortly', data: null, fetchedAt: new Date().toISOString() };
    await sleep(wait);
    wait = Math.min(wait * 2, 250);
    entry = (await readEntries(db, [upstream.key])).get(upstream.key)!;
    if (entry.fresh && entry.answer) return entry.answer;
  }
}

function remember(deps: WidgetDataDeps, key: string, answer: CachedAnswer, expiresInMs: number): void {
  if (deps.memory.size > 10_000) deps.memory.clear();
  deps.memory.set(key, { answer, until: Date.now() + Math.min(deps.memoryMs, expiresInMs) });
}

interface BoundRow {
  id: string;
  name: string;
  kind: string;
  url: string;
}

interface LoadedItem {
  kind: string;
  options: WidgetOptions;
  /** Every integration bound to the item (WDATA-3 filters them by the kinds the widget reads). */
  bound: BoundRow[];
}

/**
 * WDATA-2: the item, only on this board (404 `Item not found` otherwise), with its bindings, in one query, kept prepared
 * (every viewer's page asks for each live widget's data once per TTL; parsing and planning this join was 40% of a
 * cache hit's CPU on PGlite).
 */
async function loadItem(db: Db, boardId: string, itemId: string): Promise<LoadedItem> {
  const rows: { itemKind: string; options: unknown; integrationId: string | null; integrationName: string; integrationKind: string; integrationUrl: string }[] = await Item.table(db)
    .leftJoin(IntegrationItem.tableName, IntegrationItem.col('itemId'), Item.col('id'))
    .leftJoin(Integration.tableName, Integration.col('id'), IntegrationItem.col('integrationId'))
    .where(Item.col('id'), itemId)
    .where(Item.col('boardId'), boardId)
    .select(
      `${Item.col('kind')} as itemKind`,
      Item.col('options'),
      `${Integration.col('id')} as integrationId`,
      `${Integration.col('name')} as integrationName`,
      `${Integration.col('kind')} as integrationKind`,
      `${Integration.col('url')} as integrationUrl`,
    )
    .options(preparedStatement('tessera_item_bindings'));
  if (rows.length === 0) throw notFound('Item not found');
  const raw = typeof rows[0].options === 'string' ? JSON.parse(rows[0].options) : rows[0].options;
  const bound = rows
    .filter((row) => row.integrationId !== null)
    .map((row) => ({ id: row.integrationId!, name: row.integrationName, kind: row.integrationKind, url: row.integrationUrl }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
  return { kind: rows[0].itemKind, options: raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as WidgetOptions) : {}, bound };
}

/** WDATA-3: the integrations bound to this item, of the kinds its widget kind reads (and, CAPI-8, that this request reads). */
function boundIntegrations(item: LoadedItem, kind: LiveKind, query: Record<string, unknown>): BoundRow[] {
  if (kind.integrationKinds.length === 0 || !kind.fromIntegration) return [];
  return item.bound.filter((row) => kind.integrationKinds.includes(row.kind) && (kind.reads?.({ id: row.id, kind: row.kind }, query) ?? true));
}

/** WDATA-1..8: the live data of one item for the caller. */
export async function readItemData(db: Db, deps: WidgetDataDeps, principal: Principal | null, boardId: string, itemId: string): Promise<WidgetDataEnvelope> {
  await assertBoardAccess(db, boardId, principal, 'view');
  const item = await loadItem(db, boardId, itemId);
  const kind = (deps.kinds ?? liveKindsByWidget).get(item.kind);
  if (!kind) return { itemId, kind: item.kind, live: false, ttlSeconds: 0, results: [] };
  // DOCK-4, CAPI-8: what the instance configures or a stored record the options name, resolved once per request.
  const resolved = kind.resolve && deps.appConfig ? await kind.resolve({ config: deps.appConfig, db }, item.options) : undefined;
  const query = kind.query(item.options, resolved);
  const upstreams: Upstream[] = [];
  const integrations = boundIntegrations(item, kind, query);
  const interact = kind.actions?.length && principal && integrations.length > 0
    ? await loadIntegrationAccess(db, principal, integrations.map((i) => i.id))
    : null;
  let secretsLoad: Promise<Map<string, Partial<Record<SecretKind, string>>>> | null = null;
  const secretsOf = (id: string) => (secretsLoad ??= decryptedSecrets(db, deps.cipher, integrations.map((i) => i.id))).then((all) => all.get(id) ?? {});
  for (const integration of integrations) {
    const bound = async (): Promise<BoundIntegration> => ({ id: integration.id, name: integration.name, kind: integration.kind, target: { url: integration.url, secrets: await secretsOf(integration.id) } });
    upstreams.push({
      key: cacheKey(kind.widgetKind, { integrationId: integration.id }, query),
      integrationId: integration.id,
      name: integration.name,
      fetch: async (ctx) => kind.fromIntegration!(ctx, await bound(), query),
      secrets: async () => Object.values(await secretsOf(integration.id)) as string[],
    });
  }
  if (kind.sources && kind.fromSource) {
    for (const source of kind.sources(item.options, resolved) as DataSource[]) {
      upstreams.push({
        key: cacheKey(kind.widgetKind, { sourceKey: source.key }, query),
        integrationId: null,
        name: source.name,
        fetch: (ctx) => kind.fromSource!(ctx, source, query),
        secrets: async () => [],
      });
    }
  }
  // The answer lists at most 200 results (WidgetDataEnvelope): an item binding more shows its first 200 by name.
  upstreams.splice(200);
  const now = Date.now();
  const remembered = upstreams.map((u) => {
    const kept = deps.memory.get(u.key);
    return kept && kept.until > now ? kept.answer : null;
  });
  const missing = upstreams.filter((_, i) => remembered[i] === null).map((u) => u.key);
  const entries = missing.length > 0 ? await readEntries(db, missing) : new Map<string, CacheEntry>();
  const answers = await Promise.all(
    upstreams.map(async (upstream, i) => {
      if (remembered[i]) return remembered[i]!;
      const entry = entries.get(upstream.key)!;
      const answer = await answerOf(db, deps, kind, upstream, entry);
      if (entry.fresh && entry.answer === answer) remember(deps, upstream.key, answer, entry.expiresInMs);
      return answer;
    }),
  );
  const results = upstreams.map((upstream, index): WidgetDataResult => {
    const answer = answers[index];
    let data = answer.status === 'ok' ? answer.data : null;
    if (data !== null && kind.view) {
      try {
        data = kind.view(data, item.options, resolved);
      } catch {
        return { integrationId: upstream.integrationId, name: upstream.name, status: 'error', message: 'the widget options could not be applied to the data', fetchedAt: answer.fetchedAt, actions: [], data: null };
      }
    }
    const mayAct = upstream.integrationId !== null && interact?.get(upstream.integrationId)?.hasInteractAccess === true;
    return {
      integrationId: upstream.integrationId,
      name: upstream.name,
      status: answer.status,
      message: answer.message,
      fetchedAt: answer.fetchedAt,
      actions: mayAct ? [...(kind.actions ?? [])] : [],
      data,
    };
  });
  return { itemId, kind: item.kind, live: true, ttlSeconds: Math.ceil(kind.ttlMs / 1000), results };
}

export interface ItemActionRequest {
  integrationId: string;
  action: string;
  ids: readonly string[];
}

/**
 * WDATA-9: one action of the item's kind on one integration bound to that item: view on the board (404), the item on
 * it (404), the integration bound to it (400), `interact` on the integration (403), the action one of the kind's (400). The
 * service's failure is data. The cached answers of the integration are expired so the next read shows the change.
 */
export async function runItemAction(
  db: Db,
  deps: WidgetDataDeps,
  principal: Principal | null,
  boardId: string,
  itemId: string,
  request: ItemActionRequest,
): Promise<{ status: 'ok' | 'error'; message: string | null }> {
  await assertBoardAccess(db, boardId, principal, 'view');
  const item = await loadItem(db, boardId, itemId);
  const kind = (deps.kinds ?? liveKindsByWidget).get(item.kind);
  const resolved = kind?.resolve && deps.appConfig ? await kind.resolve({ config: deps.appConfig, db }, item.options) : undefined;
  const integration = kind ? boundIntegrations(item, kind, kind.query(item.options, resolved)).find((i) => i.id === request.integrationId) : undefined;
  if (!integration) throw badRequest(`Integration ${request.integrationId} is not bound to this item`);
  const flags = principal ? (await loadIntegrationAccess(db, principal, [integration.id])).get(integration.id) : undefined;
  if (!flags?.hasInteractAccess) throw forbidden();
  if (!kind!.actions?.includes(request.action) || !kind!.act) throw badRequest(`The ${item.kind} widget has no action "${request.action}"`, { actions: [...(kind!.actions ?? [])] });
  const secrets = (await decryptedSecrets(db, deps.cipher, [integration.id])).get(integration.id) ?? {};
  const upstream: Upstream = {
    key: `action:${integration.id}`,
    integrationId: integration.id,
    name: integration.name,
    fetch: async (ctx) => {
      await kind!.act!(ctx, { id: integration.id, name: integration.name, kind: integration.kind, target: { url: integration.url, secrets } }, request.action, request.ids);
      return null;
    },
    secrets: async () => Object.values(secrets) as string[],
  };
  const fetcher = deps.fetch ?? outboundFetch;
  const ctx: ClientContext = {
    timeoutMs: deps.config.timeoutMs,
    maxBytes: deps.config.maxBytes,
    now: () => new Date(),
    fetch: (url, r) => deps.limits.run(upstream.key, () => fetcher(url, { ...r, timeoutMs: Math.min(r.timeoutMs, deps.config.timeoutMs), maxBytes: Math.min(r.maxBytes, deps.config.maxBytes) })),
  };
  try {
    await upstream.fetch(ctx);
    await expireIntegration(db, integration.id);
    for (const key of deps.memory.keys()) if (key.startsWith(`i:${integration.id}:`)) deps.memory.delete(key);
    return { status: 'ok', message: null };
  } catch (error) {
    return { status: 'error', message: failureMessage(error, Object.values(secrets) as string[]) };
  }
}
