/**
 * LIVE-1: what every service client (`integrations/clients/<family>.ts`) is handed and answers. A client knows one
 * family of services (qBittorrent, Glances, iCal, …): the integration's base URL and decrypted secrets and a bounded
 * fetcher in, typed data out. No Express, no database, no cache: the widget-data service (`widgets/data/`) checks the
 * binding rule, caches and fans out. A client throws `ServiceError` (or lets `OutboundError` through) for anything
 * that is not data; its message is shown to viewers, so it never carries a secret.
 */
import type { OutboundFetch } from '../../outbound/fetch';

/** Homarr's secret kinds (INTEG secrets); which kinds an integration kind needs is declared per kind. */
export type SecretKind = 'username' | 'password' | 'apiKey' | 'tokenId' | 'realm' | 'personalAccessToken' | 'topic' | 'opnsenseApiKey' | 'opnsenseApiSecret' | 'privateKey' | 'githubAppId' | 'githubInstallationId';

export interface IntegrationTarget {
  /** The integration's base URL, as stored (no trailing-slash guarantee). */
  url: string;
  /** Decrypted secrets by kind (only the kinds that are set). */
  secrets: Partial<Record<SecretKind, string>>;
}

export interface ClientContext {
  fetch: OutboundFetch;
  /** Defaults for one request; a client may ask for less. */
  timeoutMs: number;
  maxBytes: number;
  now(): Date;
  /** Settings of the sources that are not integrations (WX-1, FEED-3); the defaults below when absent. */
  sources?: SourceSettings;
}

/** From the configuration (OPEN_METEO_URL, FEED_ALLOW_LOCAL): what the weather and feed kinds read. */
export interface SourceSettings {
  /** WX-1: base URL of the Open-Meteo API (`/v1/forecast` is appended). */
  openMeteoUrl: string;
  /** FEED-3: whether feeds may name this server itself (localhost, loopback, link-local). */
  feedAllowLocal: boolean;
}

export const defaultSourceSettings: SourceSettings = { openMeteoUrl: 'https://api.open-meteo.com', feedAllowLocal: false };

/** A failure that is the service's, told to the viewer as data (`status: error`): unauthorised, unparseable, … */
export class ServiceError extends Error {
  constructor(
    readonly reason: 'unauthorized' | 'bad-answer' | 'failed',
    message: string,
  ) {
    super(message);
  }
}
