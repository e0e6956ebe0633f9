import type { AddressInfo } from 'node:net';
import pino, { Logger } from 'pino';
import { largestBoardBodyBytes } from './boards/document/limits';
import type { Config } from './config/config';
import { createDatabase, Db } from './db/database';
import { lockDataDir } from './db/dataDirLock';
import { migrateToLatest } from './db/migrate';
import { embeddedStart } from './db/embedded';
import { createApp } from './http/app';
import { boardAccessKeyCompanion } from './boards/access';
import { BoardDocumentCache } from './boards/document/cache';
import { BoardStateCache } from './boards/document/stateCache';
import { createHandlers } from './handlers';
import { trpcErrorFormat } from './trpc/handlers';
import { BoardEventHub } from './boards/events/hub';
import { listenForBoardChanges } from './boards/events/listener';
import { trackConnections } from './http/gracefulClose';
import { createHttpServer } from './http/httpServer';
import type { Lifecycle } from './core/operation';
import { bootstrapAdmin, BootstrapResult } from './identity/bootstrap';
import { observeInstance } from './observability/metrics';
import { pruneAudit } from './observability/audit';
import { pruneBuckets } from './ratelimit/buckets';
import { startMetricsServer } from './http/metricsServer';
import { Provisioner } from './boards/fleet/provisioner';
import { provisioningReadLimits, provisioningSources } from './boards/fleet/provisioningSources';
import { loadSecretCipher } from './integrations/secrets/key';
import { createWidgetDataDeps } from './widgets/data/service';
import { pruneWidgetData } from './widgets/data/cacheStore';
import { pruneIdempotencyKeys } from './idempotency/store';
import { WebhookWorker } from './webhooks/worker';
import { pruneWebhookLog } from './webhooks/store';

export interface RunningServer {
  url: string;
  port: number;
  db: Db;
  logger: Logger;
  lifecycle: Lifecycle;
  bootstrap: BootstrapResult;
  /** METRIC-4: the port of the metrics listener (METRICS_PORT), null when there is none. */
  metricsPort: number | null;
  /**
   * PROV-2, PROV-7: settles once provisioning (which starts after the server listens) has applied every source once and
   * watches them; at once when nothing is provisioned.
   */
  provisioning: Promise<void>;
  /** Graceful stop: refuse new connections, finish in-flight requests, then close the database. */
  stop(): Promise<void>;
}

/** What a start on the embedded database does first, said before it does it (RUN-1). */
const embeddedStartMessage = {
  existing: 'opening the embedded database',
  template: 'creating the embedded database from the template (first start)',
  new: 'creating the embedded database (first start without a template: about 10 s; `npm run db:template` makes the next one fast)',
};

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { service: 'tessera' } });
}

/**
 * The app of one instance: its handlers with their own caches and change feed, and the request pipeline. `close`
 * ends the instance's event streams and stops listening for changes.
 */
export async function buildApp(deps: { db: Db; config: Config; logger: Logger; lifecycle: Lifecycle }) {
  const { config } = deps;
  const boardEvents = new BoardEventHub(deps.db, deps.logger, await listenForBoardChanges(deps.db, deps.logger), {
    heartbeatMs: config.eventHeartbeatMs,
    streamsPerCaller: config.eventStreamsPerCaller,
    maxBufferedBytes: config.eventMaxBufferedBytes,
  });
  // SECRET-2: a missing or malformed key stops the start (ConfigError) before the instance serves anything.
  const { cipher } = loadSecretCipher(config);
  const handlers = createHandlers({
    secrets: cipher,
    widgetData: createWidgetDataDeps(cipher, config.liveData, config),
    boardDocuments: new BoardDocumentCache(config.boardCacheBytes),
    // The same budget for the rows of recently written boards, at about 200 bytes a row.
    boardStates: new BoardStateCache(Math.floor(config.boardCacheBytes / 200)),
    boardEvents,
  });
  const app = await createApp({ ...deps, handlers, companion: boardAccessKeyCompanion, errorFormats: [trpcErrorFormat] });
  const unobserve = observeInstance({ db: deps.db, openEventStreams: () => boardEvents.openStreams(), totals: config.metricsTotals });
  return {
    app,
    close: async () => {
      unobserve();
      await boardEvents.close();
    },
  };
}

export async function startServer(config: Config, options: { db?: Db; logger?: Logger } = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config);
  if (config.bodyLimitBytes < largestBoardBodyBytes) {
    logger.warn(
      { bodyLimitBytes: config.bodyLimitBytes, largestBoardBodyBytes },
      'BODY_LIMIT is below what a PUT of the largest board the board limits allow needs: such boards cannot be written back whole',
    );
  }
  const usesDataDir = !options.db && !config.databaseUrl;
  // SECRET-2: checked first, so that PostgreSQL without a key refuses to start with one line and touches nothing.
  const { source: keySource } = loadSecretCipher(config);
  logger.info({ secretKey: keySource }, 'integration secrets key loaded');
  const unlock = usesDataDir ? lockDataDir(config.dataDir, 'the tessera server') : () => {};
  const opening = performance.now();
  if (usesDataDir) logger.info({ dataDir: config.dataDir }, embeddedStartMessage[embeddedStart(config.dataDir)]);
  const db =
    options.db ??
    createDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.databaseUrl ? null : config.dataDir, timeouts: config.databaseTimeouts });
  const lifecycle: Lifecycle = { ready: false, shuttingDown: false };

  const migrations = await migrateToLatest(db);
  logger.info({ migrationsApplied: migrations, ms: Math.round(performance.now() - opening) }, 'database ready');
  const bootstrap = await bootstrapAdmin(db, { apiKey: config.bootstrapAdminApiKey, password: config.bootstrapAdminPassword });
  const { app, close: closeStreams } = await buildApp({ db, config, logger, lifecycle });
  // PROV-1: the provisioning sources (a configuration error stops the start); they are applied once the instance listens.
  const sources = provisioningSources(config);
  const provisioner = sources.length > 0
    ? new Provisioner(db, sources, {
        username: config.provisioningUser,
        historyLimit: config.boardHistoryLimit,
        logger,
        debounceMs: config.provisioningDebounceMs,
        limits: provisioningReadLimits(config),
      })
    : null;

  // AUDIT-5: entries past AUDIT_RETENTION_DAYS go at start and then hourly (every instance may do it: deleting
  // the same old rows twice is harmless); so do the rate limiter's buckets that have refilled (RATE-2) and the
  // Idempotency-Keys whose answers expired (IDEM-5).
  const prune = () =>
    Promise.all([
      pruneAudit(db, config.auditRetentionDays).catch((error) => logger.warn({ err: error }, 'audit retention: old entries not deleted')),
      pruneBuckets(db, Object.values(config.rateLimits)).catch((error) => logger.warn({ err: error }, 'rate limits: refilled buckets not deleted')),
      pruneWidgetData(db).catch((error) => logger.warn({ err: error }, 'widget data: old cache entries not deleted')),
      pruneIdempotencyKeys(db).catch((error) => logger.warn({ err: error }, 'idempotency: expired keys not deleted')),
      pruneWebhookLog(db).catch((error) => logger.warn({ err: error }, 'webhooks: old delivery log not deleted')),
    ]);
  await prune();
  const pruning = setInterval(prune, 3_600_000);
  pruning.unref();
  const metricsServer = config.metricsPort === null ? null : await startMetricsServer(config.metricsPort, config.metricsHost);

  const server = createHttpServer(app);
  const connections = trackConnections(server);
  // Longer than the idle timeout of the proxies and clients that keep connections to us (nginx's upstream keepalive
  // 60 s): a connection the server closes at the moment a client reuses it fails that request (ECONNRESET, a 502 at
  // the proxy). The client, which announces its reuse, should be the side that ends an idle connection.
  server.keepAliveTimeout = 75_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  lifecycle.ready = true;
  // HOOK-12: every instance delivers webhook events (the database hands each event to one of them).
  const webhookWorker = new WebhookWorker(db, loadSecretCipher(config).cipher, config.webhooks, logger);
  webhookWorker.start();
  // PROV-2, PROV-7: the directories are applied in the background, then watched: start-up never waits on them.
  provisioner?.start();
  const port = (server.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      lifecycle.shuttingDown = true;
      lifecycle.ready = false;
      clearInterval(pruning);
      await metricsServer?.close();
      // Open event streams would hold their connections until the timeout: they end now (EVENT-6).
      await closeStreams();
      await provisioner?.stop();
      // HOOK-12: no new round; the one in progress finishes (its deliveries are bounded by WEBHOOK_TIMEOUT_MS).
      await Promise.all([webhookWorker.stop(), connections.close(config.shutdownGraceMs, config.shutdownTimeoutMs)]);
      await db.destroy();
      unlock();
    })();
    return stopping;
  };

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    db,
    logger,
    lifecycle,
    bootstrap,
    metricsPort: metricsServer?.port ?? null,
    provisioning: provisioner?.started ?? Promise.resolve(),
    stop,
  };
}
