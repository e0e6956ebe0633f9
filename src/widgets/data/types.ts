/**
 * LIVE-2: one live widget kind, as the widget-data service (`widgets/data/service.ts`) uses it. Each kind is a file in
 * `widgets/data/kinds/<widgetKind>.ts`, listed in `widgets/data/kinds/index.ts`; it calls the service clients in
 * `integrations/clients/` and holds no I/O of its own. Kinds not listed there keep the page's placeholder.
 *
 * Caching is the service's: upstream answers are cached per integration (or source) and `query`, for `ttlMs`, across
 * all viewers and instances; `view` then shapes the cached data for one item's options (filters, limits), so two
 * items with different limits over the same integration share one upstream request.
 */
import type { Config } from '../../config/config';
import type { Knex } from 'knex';
import type { ClientContext, IntegrationTarget } from '../../integrations/clients/types';

export type WidgetOptions = Record<string, unknown>;

export interface BoundIntegration {
  id: string;
  name: string;
  /** The integration kind (`qBittorrent`, `glances`, …). */
  kind: string;
  target: IntegrationTarget;
}

/** An upstream that is not an integration (a feed URL, a weather location): named by the item's options. */
export interface DataSource {
  /** Stable cache key of the source (for example the feed's URL). */
  key: string;
  /** What viewers are shown as the source's name (never a secret, never a URL's query). */
  name: string;
}

/**
 * What `LiveKind.resolve` is handed by the widget-data service (DOCK-4, CAPI-8). `db` is the database (`Db`, a knex
 * instance, typed as knex here: the kinds' rules import no database layer, MODEL-4); a kind uses it only through a store.
 */
export interface KindEnvironment {
  config: Config;
  db: Knex;
}

export interface LiveKind<Data = unknown, Resolved = unknown> {
  widgetKind: string;
  /** How long one upstream answer is served from the cache. */
  ttlMs: number;
  /** Integration kinds this widget reads from its bound integrations; empty when it reads none. */
  integrationKinds: readonly string[];
  /**
   * Optional, for kinds whose upstream the instance configures (dockerContainers: DOCKER_HOST) or a stored record the
   * options name (customApi: its definition): called by the service once per request, before `query`, `sources`,
   * `reads` and `view`, which are handed its answer as `resolved`. It never holds secrets (`query` may copy parts of it
   * into the cache key) and never throws for a missing record (a kind answers that as data).
   */
  resolve?(env: KindEnvironment, options: WidgetOptions): Promise<Resolved>;
  /** The part of the options that changes what is asked upstream (with the integration or source: the cache key). */
  query(options: WidgetOptions, resolved?: Resolved): Record<string, unknown>;
  /** Of the bound integrations of `integrationKinds`, whether this request reads `integration`; all when absent. */
  reads?(integration: Pick<BoundIntegration, 'id' | 'kind'>, query: Record<string, unknown>): boolean;
  /** One bound integration's data. */
  fromIntegration?(ctx: ClientContext, integration: BoundIntegration, query: Record<string, unknown>): Promise<Data>;
  /** Kinds that read no integration: the sources the options name, each fetched and cached on its own. */
  sources?(options: WidgetOptions, resolved?: Resolved): DataSource[];
  fromSource?(ctx: ClientContext, source: DataSource, query: Record<string, unknown>): Promise<Data>;
  /** Pure: the cached data shaped for one item's options (filters, limits, completed or not). Defaults to as-is. */
  view?(data: Data, options: WidgetOptions, resolved?: Resolved): Data;
  /** The actions viewers holding `interact` on the integration may take (for example `pause`, `resume`). */
  actions?: readonly string[];
  /** Carries out one action on one bound integration for the given upstream ids (torrent hashes, …). */
  act?(ctx: ClientContext, integration: BoundIntegration, action: string, ids: readonly string[]): Promise<void>;
}
