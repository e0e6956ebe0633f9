/**
 * LIVE-2: one live widget kind, as the widget-data service (`widgets/data/service.ts`) uses it. Each kind is a file in
 * `widgets/data/kinds/<widgetKind>.ts`, listed in `widgets/data/kinds/index.ts`; it calls the service clients in
 * `integrations/clients/` and holds no I/O of its own. Kinds not listed there keep the page's placeholder.
 *
 * Caching is the service's: upstream answers are cached per integration (or source) and `query`, for `ttlMs`, across
 * all viewers and instances; `view` then shapes the cached data for one item's options (filters, limits), so two
 * items with different limits over the same integration share one upstream request.
 */
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

export interface LiveKind<Data = unknown> {
  widgetKind: string;
  /** How long one upstream answer is served from the cache. */
  ttlMs: number;
  /** Integration kinds this widget reads from its bound integrations; empty when it reads none. */
  integrationKinds: readonly string[];
  /** The part of the options that changes what is asked upstream (with the integration or source: the cache key). */
  query(options: WidgetOptions): Record<string, unknown>;
  /** One bound integration's data. */
  fromIntegration?(ctx: ClientContext, integration: BoundIntegration, query: Record<string, unknown>): Promise<Data>;
  /** Kinds that read no integration: the sources the options name, each fetched and cached on its own. */
  sources?(options: WidgetOptions): DataSource[];
  fromSource?(ctx: ClientContext, source: DataSource, query: Record<string, unknown>): Promise<Data>;
  /** Pure: the cached data shaped for one item's options (filters, limits, completed or not). Defaults to as-is. */
  view?(data: Data, options: WidgetOptions): Data;
  /** The actions viewers holding `interact` on the integration may take (for example `pause`, `resume`). */
  actions?: readonly string[];
  /** Carries out one action on one bound integration for the given upstream ids (torrent hashes, …). */
  act?(ctx: ClientContext, integration: BoundIntegration, action: string, ids: readonly string[]): Promise<void>;
}
