/**
 * Prometheus metrics (METRIC-*), one registry per process, in the text format of prom-client. Other folders call the
 * metric objects below (never the other way round); what is read on a scrape (event streams, the database pool,
 * totals) comes from the instances registered with `observeInstance`.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/database';
import { Board, Item, ProvisionedBoard, User } from '../db/models';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/**
 * METRIC-9: prom-client's default gauges that end in `_total` (the suffix promtool and OpenMetrics keep for counters):
 * `promtool check metrics` fails on them. Each is the sum of a labelled gauge that stays
 * (`nodejs_active_handles{type}`, `nodejs_active_requests{type}`, `nodejs_active_resources{type}`): `sum()` of it in
 * PromQL is the same number.
 */
export const omittedDefaultMetrics = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;
for (const name of omittedDefaultMetrics) registry.removeSingleMetric(name);

/** What a scrape reads of one running instance (tests run several in one process: their values are summed). */
export interface InstanceProbe {
  db: Db;
  openEventStreams(): number;
  /** METRIC-5: whether the totals (boards, items, users) are computed. */
  totals: boolean;
}

const instances = new Set<InstanceProbe>();

/** Registers an instance for the scrape-time gauges; returns the function that removes it. */
export function observeInstance(probe: InstanceProbe): () => void {
  instances.add(probe);
  const onError = () => metrics.dbQueryErrors.inc();
  probe.db.on('query-error', onError);
  return () => {
    instances.delete(probe);
    probe.db.removeListener('query-error', onError);
  };
}

interface Pool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}
const poolOf = (db: Db) => (db.client as { pool?: Pool }).pool;

/** Totals are read at most once a minute per process (a count over items is not free). */
let totalsCache: { at: number; values: Record<'boards' | 'items' | 'users', number> } | null = null;

async function readTotals(): Promise<Record<'boards' | 'items' | 'users', number> | null> {
  const probe = [...instances].find((candidate) => candidate.totals);
  if (!probe) return null;
  if (totalsCache && Date.now() - totalsCache.at < 60_000) return totalsCache.values;
  const { rows } = await probe.db.raw<{ rows: { boards: number; items: number; users: number }[] }>(
    `SELECT (SELECT count(*) FROM ${Board.tableName})::int AS boards, (SELECT count(*) FROM ${Item.tableName})::int AS items, (SELECT count(*) FROM ${User.tableName})::int AS users`,
  );
  totalsCache = { at: Date.now(), values: rows[0] };
  return rows[0];
}

const sum = (read: (probe: InstanceProbe) => number) => [...instances].reduce((total, probe) => total + read(probe), 0);

const durationBuckets = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  // METRIC-2: requests by operationId (never by raw path) and status.
  httpRequests: new Counter({
    name: 'tessera_http_requests_total',
    help: 'HTTP requests answered, by operationId (or "unrouted") and status',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'tessera_http_request_duration_seconds',
    help: 'Time from the request to its answer, by operationId',
    labelNames: ['operation'] as const,
    buckets: durationBuckets,
    registers: [registry],
  }),
  // METRIC-3: the board services.
  boardWrites: new Counter({
    name: 'tessera_board_writes_total',
    help: 'Committed board changes, by the operation that wrote them',
    labelNames: ['operation'] as const,
    registers: [registry],
  }),
  revisionsRecorded: new Counter({
    name: 'tessera_history_revisions_recorded_total',
    help: 'History entries written (committed), baseline entries included',
    registers: [registry],
  }),
  plans: new Counter({
    name: 'tessera_plans_total',
    help: 'Dry runs (plans of saves, layouts and imports), by operation and outcome (success or failure)',
    labelNames: ['operation', 'outcome'] as const,
    registers: [registry],
  }),
  imports: new Counter({
    name: 'tessera_imports_total',
    help: 'Board file imports (applies), by outcome (success or failure)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  documentCache: new Counter({
    name: 'tessera_document_cache_requests_total',
    help: 'Lookups of the serialized board document cache, by result (hit or miss)',
    labelNames: ['result'] as const,
    registers: [registry],
  }),
  eventsDelivered: new Counter({
    name: 'tessera_events_delivered_total',
    help: 'Change events written to event streams',
    registers: [registry],
  }),
  eventDeliveryLag: new Histogram({
    name: 'tessera_event_delivery_lag_seconds',
    help: 'Time from a history entry (on any instance) to its delivery to a stream of this instance',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60],
    registers: [registry],
  }),
  dbQueryErrors: new Counter({
    name: 'tessera_db_query_errors_total',
    help: 'Database statements that failed (constraint violations answered as 409 included)',
    registers: [registry],
  }),
  rateLimited: new Counter({
    name: 'tessera_rate_limited_requests_total',
    help: 'Requests refused with 429 by the per-caller rate limits, by class',
    labelNames: ['class'] as const,
    registers: [registry],
  }),
  // METRIC-6, METRIC-7: the fleet (set applies through the API; provisioning applies by source).
  setApplies: new Counter({
    name: 'tessera_set_applies_total',
    help: 'Board set applies (POST /api/boards/apply), by outcome (success or failure) and dry_run (true or false)',
    labelNames: ['outcome', 'dry_run'] as const,
    registers: [registry],
  }),
  provisioningApplies: new Counter({
    name: 'tessera_provisioning_applies_total',
    help: 'Provisioning applies of a source directory (at start and on a change), by source (its managedBy) and outcome',
    labelNames: ['source', 'outcome'] as const,
    registers: [registry],
  }),
  auditEntries: new Counter({
    name: 'tessera_audit_entries_total',
    help: 'Audit log entries committed, by action and outcome',
    labelNames: ['action', 'outcome'] as const,
    registers: [registry],
  }),
  // HOOK-17: webhook delivery attempts.
  webhookDeliveries: new Counter({
    name: 'tessera_webhook_deliveries_total',
    help: 'Webhook delivery attempts made by this instance, by event type and outcome (succeeded or failed)',
    labelNames: ['event', 'outcome'] as const,
    registers: [registry],
  }),
  webhookDeliveryDuration: new Histogram({
    name: 'tessera_webhook_delivery_duration_seconds',
    help: 'Time of one webhook delivery attempt, from the request to the end of the answer',
    buckets: durationBuckets,
    registers: [registry],
  }),
};

new Gauge({
  name: 'tessera_event_streams',
  help: 'Open event streams (change feed) on this instance',
  registers: [registry],
  collect() {
    this.set(sum((probe) => probe.openEventStreams()));
  },
});

new Gauge({
  name: 'tessera_db_pool_connections',
  help: 'Database pool connections by state (used, idle) and acquisitions waiting (waiting)',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    this.set({ state: 'used' }, sum((probe) => poolOf(probe.db)?.numUsed() ?? 0));
    this.set({ state: 'idle' }, sum((probe) => poolOf(probe.db)?.numFree() ?? 0));
    this.set({ state: 'waiting' }, sum((probe) => poolOf(probe.db)?.numPendingAcquires() ?? 0));
  },
});

new Gauge({
  name: 'tessera_objects',
  help: 'Totals of boards, items and users (METRICS_TOTALS; read at most once a minute)',
  labelNames: ['kind'] as const,
  registers: [registry],
  async collect() {
    const totals = await readTotals().catch(() => null);
    if (!totals) return;
    for (const kind of ['boards', 'items', 'users'] as const) this.set({ kind }, totals[kind]);
  },
});

new Gauge({
  name: 'tessera_drifted_boards',
  help: 'Provisioned boards another writer changed since provisioning last applied their file (DRIFT-2)',
  registers: [registry],
  async collect() {
    // METRIC-7: one count over the provisioned boards (a small table: one row per provisioned file), at scrape time.
    // Tests run several instances (each on its own database) in one process: their counts are summed.
    const counts = await Promise.all(
      [...instances].map((probe) =>
        ProvisionedBoard.table(probe.db)
          .where({ drifted: true })
          .count<{ count: string | number }[]>({ count: '*' })
          .then((rows) => Number(rows[0].count))
          .catch(() => null),
      ),
    );
    if (counts.some((count) => count === null)) return;
    const drifted = counts.reduce<number>((total, count) => total + count!, 0);
    this.set(drifted);
  },
});

/** The exposition (METRIC-1). */
export async function metricsText(): Promise<{ contentType: string; text: string }> {
  return { contentType: registry.contentType, text: await registry.metrics() };
}

/** METRIC-2/3: what one answered operation counts: its request, and the plan and import counters. */
export function observeOperation(operation: string, status: number, seconds: number | null): void {
  if (seconds !== null) {
    metrics.httpRequests.inc({ operation, status: String(status) });
    metrics.httpDuration.observe({ operation }, seconds);
  }
  const outcome = status < 400 ? 'success' : 'failure';
  if (operation === 'planBoardSave' || operation === 'planBoardLayouts' || operation === 'planImportBoard') metrics.plans.inc({ operation, outcome });
  else if (operation === 'importBoard') metrics.imports.inc({ outcome });
}
