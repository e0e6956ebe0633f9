import { isIP } from 'node:net';
import path from 'node:path';
import { canParseUrl } from '../core/url';

export interface Config {
  port: number;
  host: string;
  /** postgres://... ; when absent the embedded PGlite database in dataDir is used. */
  databaseUrl: string | null;
  dataDir: string;
  bootstrapAdminApiKey: string | null;
  bootstrapAdminPassword: string | null;
  logLevel: string;
  /**
   * Largest request body. The default leaves room for a PUT of the largest board the board limits allow
   * (src/boards/document/limits.ts); the server warns at start when it is set lower.
   */
  bodyLimitBytes: number;
  /** Largest YAML request body (INPUT-5): YAML costs far more to parse than JSON. */
  yamlBodyLimitBytes: number;
  /** How long one YAML body may take to parse, on its worker thread, before it is refused with a 413 (INPUT-5). */
  yamlParseTimeoutMs: number;
  /** CORS-1: the origins (`scheme://host[:port]`) whose pages may call the API from a browser (CORS_ORIGINS); none by default. */
  corsOrigins: string[];
  /** Set the Secure attribute on the session cookie (behind HTTPS). */
  cookieSecure: boolean;
  /** LB-2: which proxies' X-Forwarded-For entries are believed (express's `trust proxy`): none, a hop count, or addresses. */
  trustProxy: TrustProxy;
  sessionTtlSeconds: number;
  shutdownTimeoutMs: number;
  /** On SIGTERM, how long the listener stays open so that requests already sent are accepted and served. */
  shutdownGraceMs: number;
  /** Memory for serialized board documents (0 disables the cache). */
  boardCacheBytes: number;
  /** History entries kept per board (BOARD_HISTORY_LIMIT), the creation entry besides; 0 records no history. */
  boardHistoryLimit: number;
  /** Change feed (EVENT-*): heartbeat period, open streams per caller (across instances), unread bytes before a stream is dropped. */
  eventHeartbeatMs: number;
  eventStreamsPerCaller: number;
  eventMaxBufferedBytes: number;
  /** App reachability (PING-*): at most one check per app per interval, each bounded in time, a few at once per instance. */
  ping: PingConfig;
  /** DB-1: how long a connection of the pool, a new connection and one statement may be waited for. */
  databaseTimeouts: DatabaseTimeouts;
  /** DB-1: how long readiness waits for the database's answer before it answers 503. */
  readyTimeoutMs: number;
  /** Validate every response against the OpenAPI document (tests turn this on). */
  validateResponses: boolean;
  /** RATE-5: the per-caller token buckets by class (RATE_LIMIT_READS, _WRITES, _IMPORTS as `<quota>/<seconds>`); null = not limited. */
  rateLimits: { reads: RateLimitPolicy | null; writes: RateLimitPolicy | null; imports: RateLimitPolicy | null };
  /** METRIC-4: the Bearer token that opens GET /metrics on the public port (null: 404 there). */
  metricsToken: string | null;
  /** METRIC-4: a separate listener serving only /metrics, without a token (null: none), and its address. */
  metricsPort: number | null;
  metricsHost: string;
  /** METRIC-5: whether the scrape reports totals of boards, items and users. */
  metricsTotals: boolean;
  /** AUDIT-5: audit entries older than this many days are deleted (0 keeps them all). */
  auditRetentionDays: number;
  /** AGENT-2: what MCP tools may do (MCP_MODE): list and answer reads only, propose writes, or write. */
  mcpMode: McpMode;
  /** AGENT-4: how long an MCP proposal can be applied (MCP_PROPOSAL_TTL, seconds). */
  mcpProposalTtlSeconds: number;
  /** PROV-1: a directory of board files applied at start and on change (PROVISIONING_DIR). */
  provisioningDir: string | null;
  /** PROV-1: a YAML file naming several directories with their managedBy, prune and allowApiUpdates (PROVISIONING_CONFIG). */
  provisioningConfig: string | null;
  /** PROV-1: the user provisioning applies as (PROVISIONING_USER, default admin): the creator and actor of what it writes. */
  provisioningUser: string;
  /** PROV-2: how long file changes settle before the directory is applied again. */
  provisioningDebounceMs: number;
  /** PROV-7: the most board files one source directory applies (PROVISIONING_MAX_FILES, at most a set's 200). */
  provisioningMaxFiles: number;
  /** PROV-7: the largest board file provisioning reads (PROVISIONING_MAX_FILE_BYTES); a larger one is refused unread. */
  provisioningMaxFileBytes: number;
  /** WX-1: base URL of the Open-Meteo forecast API (OPEN_METEO_URL), for the weather and clock widgets. */
  openMeteoUrl: string;
  /** FEED-3: whether RSS widgets may read feeds from this server itself (FEED_ALLOW_LOCAL: localhost, loopback, link-local). */
  feedAllowLocal: boolean;
  /** DOCK-1: the Docker Engine API the dockerContainers widget reads (DOCKER_HOST); null when unset. */
  dockerHost: DockerHost | null;
  /** SECRET-2: the key of the integration secrets (64 hex digits or base64 of 32 bytes), or a file holding it. */
  secretEncryptionKey: string | null;
  secretEncryptionKeyFile: string | null;
  /** WDATA-5: bounds of one upstream request for widget data, and how many run at once. */
  liveData: LiveDataConfig;
  /** MCPAUTH-1: the MCP endpoint as an OAuth protected resource (AUTH_OIDC_ISSUER with MCP_RESOURCE_URL); null: API keys only (MCP-5). */
  mcpOAuth: McpOAuthConfig | null;
  /** HOOK-11..15: webhook delivery. */
  webhooks: WebhookConfig;
  /** OIDC-1: the sign-ins offered (AUTH_PROVIDERS): local passwords (`credentials`), an OpenID provider (`oidc`), or both. */
  authProviders: { credentials: boolean; oidc: boolean };
  /** OIDC-1: the OpenID provider, when AUTH_PROVIDERS names `oidc` (null otherwise). */
  oidc: OidcConfig | null;
}

export interface WebhookConfig {
  /** WEBHOOK_TIMEOUT_MS: one delivery request and its whole answer. */
  timeoutMs: number;
  /** WEBHOOK_POLL_MS: how often each instance's worker looks for due deliveries; 0: this instance delivers none. */
  pollMs: number;
  /** WEBHOOK_RETRY_BASE_MS: the first retry's delay; each next one doubles (capped at an hour), with jitter. */
  retryBaseMs: number;
  /** WEBHOOK_RETRY_WINDOW_MS: how long after the event retries go on; then the event counts as failed. */
  retryWindowMs: number;
  /** WEBHOOK_SECRET_OVERLAP_MS: how long the previous secret still signs after a rotation. */
  secretOverlapMs: number;
}

/** MCPAUTH-1: the provider whose access tokens the MCP endpoint takes, and the endpoint's own identifier (their audience). */
export interface McpOAuthConfig {
  /** AUTH_OIDC_ISSUER: the OpenID provider's issuer URL, exactly as its discovery document names it. */
  issuer: string;
  /** MCP_RESOURCE_URL: the MCP endpoint's canonical URL (`https://host/api/mcp`), the audience tokens must carry. */
  resource: string;
}

/** OIDC-1: the OpenID provider and how its accounts become Tessera users (Homarr's variable names). */
export interface OidcConfig {
  /** AUTH_OIDC_ISSUER: the issuer URL; its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  /** AUTH_OIDC_CLIENT_SECRET; null for a public client (PKCE alone). */
  clientSecret: string | null;
  /** AUTH_OIDC_CLIENT_NAME: the button's label, `Sign in with <name>`. */
  clientName: string;
  /** AUTH_OIDC_SCOPE_OVERWRITE: the scopes asked for (always with `openid`). */
  scope: string;
  /** AUTH_OIDC_GROUPS_ATTRIBUTE: the claim holding the user's group names. */
  groupsAttribute: string;
  /** AUTH_OIDC_AUTO_LOGIN: the sign-in goes straight to the provider (OIDC-6). */
  autoLogin: boolean;
  /** AUTH_OIDC_FORCE_USERINFO: claims are read from the userinfo endpoint even when the ID token has them. */
  forceUserinfo: boolean;
  /** AUTH_OIDC_ADMIN_GROUP: members of this provider group hold `admin` (OIDC-15); null: none. */
  adminGroup: string | null;
  /** AUTH_OIDC_LINK_EXISTING: how a first sign-in may take over a local user (OIDC-12). */
  linkExisting: 'off' | 'email' | 'username';
  /** BASE_URL: the public URL of this instance, origin and optional path, without a trailing slash. */
  baseUrl: string;
  /** The redirect URI registered at the provider: `<BASE_URL>/api/auth/callback/oidc` (Homarr's). */
  redirectUri: string;
}

export const oidcCallbackPath = '/api/auth/callback/oidc';

/**
 * An http(s) URL without query or fragment; `name` names the variable in the error. Trailing slashes are dropped, but
 * for an issuer, which must be kept exactly as the provider spells it (Authentik's ends with `/`).
 */
function baseUrlFrom(env: NodeJS.ProcessEnv, name: string, exact = false): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`${name} must be an http(s) URL without query or fragment, such as https://tessera.example.com, got "${raw}"`);
  }
  return exact ? raw : raw.replace(/\/+$/, '');
}

/** OIDC-1: AUTH_PROVIDERS, `credentials`, `oidc` or both, comma-separated (default `credentials`). */
function authProvidersFrom(env: NodeJS.ProcessEnv): { credentials: boolean; oidc: boolean } {
  const raw = env.AUTH_PROVIDERS?.trim() || 'credentials';
  const names = raw.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  const unknown = names.filter((name) => name !== 'credentials' && name !== 'oidc');
  if (unknown.length > 0 || names.length === 0) {
    throw new ConfigError(`AUTH_PROVIDERS must be credentials, oidc, or both separated by a comma, got "${raw}"`);
  }
  return { credentials: names.includes('credentials'), oidc: names.includes('oidc') };
}

const linkModes = ['off', 'email', 'username'] as const;

/** OIDC-1: the provider's settings; every one required for `oidc` is named when missing. */
export function oidcConfigFrom(env: NodeJS.ProcessEnv, enabled: boolean): OidcConfig | null {
  if (!enabled) return null;
  const issuer = baseUrlFrom(env, 'AUTH_OIDC_ISSUER', true);
  const clientId = env.AUTH_OIDC_CLIENT_ID?.trim();
  const baseUrl = baseUrlFrom(env, 'BASE_URL');
  const missing = [!issuer && 'AUTH_OIDC_ISSUER', !clientId && 'AUTH_OIDC_CLIENT_ID', !baseUrl && 'BASE_URL'].filter(Boolean);
  if (missing.length > 0) throw new ConfigError(`AUTH_PROVIDERS names oidc, so ${missing.join(', ')} must be set`);
  const link = (env.AUTH_OIDC_LINK_EXISTING?.trim() || 'off').toLowerCase();
  const linkExisting = linkModes.find((mode) => mode === link);
  if (!linkExisting) throw new ConfigError(`AUTH_OIDC_LINK_EXISTING must be one of ${linkModes.join(', ')}, got "${env.AUTH_OIDC_LINK_EXISTING}"`);
  const scopes = (env.AUTH_OIDC_SCOPE_OVERWRITE?.trim() || 'openid email profile groups').split(/\s+/);
  return {
    issuer: issuer!,
    clientId: clientId!,
    clientSecret: env.AUTH_OIDC_CLIENT_SECRET || null,
    clientName: env.AUTH_OIDC_CLIENT_NAME?.trim() || 'OIDC',
    scope: (scopes.includes('openid') ? scopes : ['openid', ...scopes]).join(' '),
    groupsAttribute: env.AUTH_OIDC_GROUPS_ATTRIBUTE?.trim() || 'groups',
    autoLogin: boolFrom(env, 'AUTH_OIDC_AUTO_LOGIN', false),
    forceUserinfo: boolFrom(env, 'AUTH_OIDC_FORCE_USERINFO', false),
    adminGroup: env.AUTH_OIDC_ADMIN_GROUP?.trim() || null,
    linkExisting,
    baseUrl: baseUrl!,
    redirectUri: `${baseUrl}${oidcCallbackPath}`,
  };
}

export interface LiveDataConfig {
  /** LIVE_DATA_TIMEOUT_MS: one upstream request and its whole answer. */
  timeoutMs: number;
  /** LIVE_DATA_MAX_BYTES: the largest upstream answer read. */
  maxBytes: number;
  /** LIVE_DATA_CONCURRENCY: upstream requests running at once on one instance. */
  concurrency: number;
  /** LIVE_DATA_PER_INTEGRATION: upstream requests running at once per integration (or source) on one instance. */
  perIntegration: number;
}

/** DOCK-1: `unix:///path/docker.sock` (a socket) or `tcp://host:port` (plain HTTP to that address). */
export type DockerHost = { kind: 'unix'; socketPath: string } | { kind: 'tcp'; baseUrl: string };

/** A token bucket: `quota` requests per `windowSeconds`, as a burst of `quota` refilled evenly over the window. */
export interface RateLimitPolicy {
  quota: number;
  windowSeconds: number;
}

/**
 * LB-2: false (the socket's address is the client's), a number of proxies in front (the client is that many entries
 * from the right of X-Forwarded-For: entries a client sent itself stay to the left and are ignored), or the
 * addresses/subnets of the proxies (express's names `loopback`, `linklocal`, `uniquelocal` too). Never express's
 * `true`, which believes the leftmost entry, the one any client can write.
 */
export type TrustProxy = false | number | string[];

const proxyNames = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** LB-2: TRUST_PROXY as `false`, `true` (= 1: one proxy in front), a hop count, or a comma-separated list of addresses. */
export function trustProxyFrom(env: NodeJS.ProcessEnv): TrustProxy {
  const raw = env.TRUST_PROXY?.trim();
  if (raw === undefined || raw === '' || /^(0|false|no|off)$/i.test(raw)) return false;
  if (/^(true|yes|on)$/i.test(raw)) return 1;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  const valid = (entry: string) => {
    if (proxyNames.has(entry)) return true;
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || extra !== undefined) return false;
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  };
  if (entries.every(valid)) return entries;
  throw new ConfigError(
    `TRUST_PROXY must be false, true (one proxy in front), a number of proxies, or a comma-separated list of proxy addresses or subnets (such as 10.0.0.0/8, loopback), got "${raw}"`,
  );
}

/** RATE-5: `<quota>/<seconds>` (`600/60`), a bare quota per minute (`600`), or `0`/`off` for no limit. */
function rateFrom(env: NodeJS.ProcessEnv, name: string, fallback: RateLimitPolicy): RateLimitPolicy | null {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (raw === '0' || /^off$/i.test(raw)) return null;
  const match = /^(\d{1,9})(?:\s*\/\s*(\d{1,7}))?$/.exec(raw);
  const quota = Number(match?.[1]);
  const windowSeconds = Number(match?.[2] ?? 60);
  if (!match || quota < 1 || windowSeconds < 1) {
    throw new ConfigError(`${name} must be <requests>/<seconds> (such as 600/60), a number of requests per minute, or 0 for no limit, got "${raw}"`);
  }
  return { quota, windowSeconds };
}

/** RATE-5: the defaults, far above what one person or script needs and what the test suites and schemathesis send. */
export const defaultRateLimits = {
  reads: { quota: 20_000, windowSeconds: 60 },
  writes: { quota: 5_000, windowSeconds: 60 },
  imports: { quota: 600, windowSeconds: 60 },
} as const satisfies Record<string, RateLimitPolicy>;

/**
 * How long a wait on PostgreSQL may last (DB-1): a frozen or unreachable database answers 503 once one runs out,
 * rather than holding every request for as long as it is frozen. (PGlite runs inside the process.)
 */
export interface DatabaseTimeouts {
  /** Waiting for a connection of the pool. */
  acquireMs: number;
  /** Opening a connection (PostgreSQL). */
  connectMs: number;
  /**
   * One statement: PostgreSQL's `statement_timeout` ends it in the database; the client gives up a second later
   * (a database that does not answer at all) and closes that connection.
   */
  statementMs: number;
}

export interface PingConfig {
  /** PING_INTERVAL_S: a result younger than this is served as stored; an older one is checked again. */
  intervalMs: number;
  /** PING_TIMEOUT_MS: how long one check may take before the app counts as down. */
  timeoutMs: number;
  /** PING_CONCURRENCY: checks running at once on one instance. */
  concurrency: number;
}

export const defaultDatabaseTimeouts: DatabaseTimeouts = { acquireMs: 10_000, connectMs: 5_000, statementMs: 15_000 };

export class ConfigError extends Error {}

/** METRIC-8: the shortest METRICS_TOKEN accepted (a guessable token would open the scrape to anyone). */
export const minMetricsTokenLength = 16;

/**
 * CORS-1: CORS_ORIGINS, a comma-separated list of origins, each exactly `http(s)://host[:port]` as browsers send it
 * in `Origin` (no path, no wildcard: a listed origin may send the caller's credentials). Empty or unset: none.
 */
export function corsOriginsFrom(env: NodeJS.ProcessEnv): string[] {
  const entries = (env.CORS_ORIGINS ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  return [
    ...new Set(
      entries.map((entry) => {
        let origin: string | null = null;
        try {
          const url = new URL(entry);
          const bare = !url.username && !url.password && url.pathname === '/' && !url.search && !url.hash && !/[*?#]/.test(entry);
          if ((url.protocol === 'http:' || url.protocol === 'https:') && bare && /^https?:\/\/[^/]+\/?$/i.test(entry)) origin = url.origin;
        } catch {
          origin = null;
        }
        if (origin === null) {
          throw new ConfigError(`CORS_ORIGINS must be a comma-separated list of origins such as https://app.example.com or http://localhost:3000 (scheme, host and port only, no wildcard), got "${entry}"`);
        }
        return origin;
      }),
    ),
  ];
}

function metricsTokenFrom(env: NodeJS.ProcessEnv): string | null {
  const token = env.METRICS_TOKEN?.trim();
  if (!token) return null;
  if (token.length < minMetricsTokenLength) {
    throw new ConfigError(
      `METRICS_TOKEN must be at least ${minMetricsTokenLength} characters long (got ${token.length}); generate one with: openssl rand -hex 32`,
    );
  }
  return token;
}

/** AGENT-2: the MCP modes, from the narrowest. */
export const mcpModes = ['read-only', 'propose', 'write'] as const;
export type McpMode = (typeof mcpModes)[number];

function mcpModeFrom(env: NodeJS.ProcessEnv): McpMode {
  const raw = env.MCP_MODE?.trim();
  if (!raw) return 'propose';
  const mode = mcpModes.find((candidate) => candidate === raw);
  if (!mode) throw new ConfigError(`MCP_MODE must be one of ${mcpModes.join(', ')}, got "${raw}"`);
  return mode;
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** Parses sizes such as 1048576, 512kb or 2mb. */
function bytesFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(raw.trim());
  if (!match) throw new ConfigError(`${name} must be a size such as 1048576, 512kb or 2mb, got "${raw}"`);
  const unit = (match[2] ?? 'b').toLowerCase();
  const factor = unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1;
  return Number(match[1]) * factor;
}

function boolFrom(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** WX-1: OPEN_METEO_URL, an http(s) base URL without a trailing slash. */
function openMeteoUrlFrom(env: NodeJS.ProcessEnv): string {
  const raw = env.OPEN_METEO_URL?.trim();
  if (!raw) return 'https://api.open-meteo.com';
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new ConfigError(`OPEN_METEO_URL must be an http(s) base URL such as https://api.open-meteo.com, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/**
 * MCPAUTH-1: OAuth for MCP clients is on when both AUTH_OIDC_ISSUER (the provider, shared with the page's sign-in) and
 * MCP_RESOURCE_URL (the MCP endpoint's public URL, ending in /api/mcp) are set; the issuer alone leaves the MCP endpoint
 * to API keys. MCP_RESOURCE_URL without an issuer, or either not an http(s) URL, stops the start.
 */
export function mcpOAuthFrom(env: NodeJS.ProcessEnv): McpOAuthConfig | null {
  const issuer = env.AUTH_OIDC_ISSUER?.trim() || '';
  const resource = env.MCP_RESOURCE_URL?.trim() || '';
  const httpUrl = (value: string) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.hash && !url.search && !url.username && !url.password ? url : null;
    } catch {
      return null;
    }
  };
  if (issuer && !httpUrl(issuer)) throw new ConfigError(`AUTH_OIDC_ISSUER must be the provider's http(s) issuer URL, got "${issuer}"`);
  if (!resource) return null;
  const url = httpUrl(resource);
  if (!url || !/\/api\/mcp$/.test(url.pathname)) {
    throw new ConfigError(`MCP_RESOURCE_URL must be the MCP endpoint's public http(s) URL such as https://tessera.example.com/api/mcp, got "${resource}"`);
  }
  if (!issuer) throw new ConfigError('MCP_RESOURCE_URL needs AUTH_OIDC_ISSUER: the provider whose access tokens the MCP endpoint takes');
  return { issuer, resource };
}

/** DOCK-1: DOCKER_HOST as Docker's own clients spell it: `unix:///absolute/path` or `tcp://host:port`. */
export function dockerHostFrom(env: NodeJS.ProcessEnv): DockerHost | null {
  const raw = env.DOCKER_HOST?.trim();
  if (!raw) return null;
  const unix = /^unix:\/\/(\/.+)$/.exec(raw);
  if (unix) return { kind: 'unix', socketPath: unix[1]! };
  const tcp = /^tcp:\/\/([^/?#@\s]+:\d{1,5})\/?$/.exec(raw);
  if (tcp && canParseUrl(`http://${tcp[1]}`)) return { kind: 'tcp', baseUrl: new URL(`http://${tcp[1]}`).origin };
  throw new ConfigError(`DOCKER_HOST must be unix:///path/to/docker.sock or tcp://host:port, got "${raw}"`);
}

function authFrom(env: NodeJS.ProcessEnv): Pick<Config, 'authProviders' | 'oidc'> {
  const authProviders = authProvidersFrom(env);
  return { authProviders, oidc: oidcConfigFrom(env, authProviders.oidc) };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: intFrom(env, 'PORT', 7575, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || null,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    bootstrapAdminApiKey: env.BOOTSTRAP_ADMIN_API_KEY || null,
    bootstrapAdminPassword: env.BOOTSTRAP_ADMIN_PASSWORD || null,
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimitBytes: bytesFrom(env, 'BODY_LIMIT', 10 * 1024 * 1024),
    yamlBodyLimitBytes: bytesFrom(env, 'YAML_BODY_LIMIT', 2 * 1024 * 1024),
    yamlParseTimeoutMs: intFrom(env, 'YAML_PARSE_TIMEOUT_MS', 5000, 1, 600_000),
    corsOrigins: corsOriginsFrom(env),
    cookieSecure: boolFrom(env, 'COOKIE_SECURE', false),
    trustProxy: trustProxyFrom(env),
    sessionTtlSeconds: intFrom(env, 'SESSION_TTL_SECONDS', 7 * 24 * 3600, 60, 365 * 24 * 3600),
    shutdownTimeoutMs: intFrom(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    shutdownGraceMs: intFrom(env, 'SHUTDOWN_GRACE_MS', 1000, 0, 60_000),
    boardCacheBytes: intFrom(env, 'BOARD_CACHE_MB', 64, 0, 16384) * 1024 * 1024,
    boardHistoryLimit: intFrom(env, 'BOARD_HISTORY_LIMIT', 500, 0, 1_000_000),
    eventHeartbeatMs: intFrom(env, 'EVENT_HEARTBEAT_MS', 15_000, 100, 3_600_000),
    eventStreamsPerCaller: intFrom(env, 'EVENT_STREAMS_PER_CALLER', 16, 1, 100_000),
    eventMaxBufferedBytes: intFrom(env, 'EVENT_MAX_BUFFERED_KB', 256, 1, 1_048_576) * 1024,
    ping: {
      intervalMs: intFrom(env, 'PING_INTERVAL_S', 60, 1, 86_400) * 1000,
      timeoutMs: intFrom(env, 'PING_TIMEOUT_MS', 3_000, 100, 60_000),
      concurrency: intFrom(env, 'PING_CONCURRENCY', 8, 1, 256),
    },
    databaseTimeouts: {
      acquireMs: intFrom(env, 'DB_ACQUIRE_TIMEOUT_MS', defaultDatabaseTimeouts.acquireMs, 1, 600_000),
      connectMs: intFrom(env, 'DB_CONNECT_TIMEOUT_MS', defaultDatabaseTimeouts.connectMs, 1, 600_000),
      statementMs: intFrom(env, 'DB_STATEMENT_TIMEOUT_MS', defaultDatabaseTimeouts.statementMs, 1, 3_600_000),
    },
    readyTimeoutMs: intFrom(env, 'READY_TIMEOUT_MS', 2_000, 1, 600_000),
    validateResponses: boolFrom(env, 'VALIDATE_RESPONSES', false),
    rateLimits: {
      reads: rateFrom(env, 'RATE_LIMIT_READS', defaultRateLimits.reads),
      writes: rateFrom(env, 'RATE_LIMIT_WRITES', defaultRateLimits.writes),
      imports: rateFrom(env, 'RATE_LIMIT_IMPORTS', defaultRateLimits.imports),
    },
    metricsToken: metricsTokenFrom(env),
    metricsPort: env.METRICS_PORT ? intFrom(env, 'METRICS_PORT', 0, 0, 65535) : null,
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    metricsTotals: boolFrom(env, 'METRICS_TOTALS', true),
    auditRetentionDays: intFrom(env, 'AUDIT_RETENTION_DAYS', 365, 0, 100_000),
    mcpMode: mcpModeFrom(env),
    mcpProposalTtlSeconds: intFrom(env, 'MCP_PROPOSAL_TTL', 3600, 1, 30 * 24 * 3600),
    provisioningDir: env.PROVISIONING_DIR ? path.resolve(env.PROVISIONING_DIR) : null,
    provisioningConfig: env.PROVISIONING_CONFIG ? path.resolve(env.PROVISIONING_CONFIG) : null,
    provisioningUser: env.PROVISIONING_USER || 'admin',
    provisioningDebounceMs: intFrom(env, 'PROVISIONING_DEBOUNCE_MS', 500, 0, 600_000),
    provisioningMaxFiles: intFrom(env, 'PROVISIONING_MAX_FILES', 200, 1, 200),
    provisioningMaxFileBytes: bytesFrom(env, 'PROVISIONING_MAX_FILE_BYTES', 2 * 1024 * 1024),
    openMeteoUrl: openMeteoUrlFrom(env),
    feedAllowLocal: boolFrom(env, 'FEED_ALLOW_LOCAL', false),
    dockerHost: dockerHostFrom(env),
    secretEncryptionKey: env.SECRET_ENCRYPTION_KEY?.trim() || null,
    secretEncryptionKeyFile: env.SECRET_ENCRYPTION_KEY_FILE ? path.resolve(env.SECRET_ENCRYPTION_KEY_FILE) : null,
    liveData: {
      timeoutMs: intFrom(env, 'LIVE_DATA_TIMEOUT_MS', 5_000, 100, 120_000),
      maxBytes: bytesFrom(env, 'LIVE_DATA_MAX_BYTES', 2 * 1024 * 1024),
      concurrency: intFrom(env, 'LIVE_DATA_CONCURRENCY', 16, 1, 1024),
      perIntegration: intFrom(env, 'LIVE_DATA_PER_INTEGRATION', 2, 1, 64),
    },
    mcpOAuth: mcpOAuthFrom(env),
    webhooks: {
      timeoutMs: intFrom(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      pollMs: intFrom(env, 'WEBHOOK_POLL_MS', 1_000, 0, 60_000),
      retryBaseMs: intFrom(env, 'WEBHOOK_RETRY_BASE_MS', 5_000, 10, 3_600_000),
      retryWindowMs: intFrom(env, 'WEBHOOK_RETRY_WINDOW_MS', 86_400_000, 100, 7 * 86_400_000),
      secretOverlapMs: intFrom(env, 'WEBHOOK_SECRET_OVERLAP_MS', 86_400_000, 0, 7 * 86_400_000),
    },
    ...authFrom(env),
  };
}
