/**
 * MCPAUTH-2..4: the MCP endpoint as an OAuth 2.0 protected resource (MCP 2025-11-25, authorization; RFC 9728): its
 * metadata document, where that document lives, and the `WWW-Authenticate` challenge of its 401s. Pure functions of
 * the configuration; no I/O.
 */
import type { McpOAuthConfig } from '../../config/config';

/** RFC 9728 section 3: the well-known path the metadata of a resource is found at. */
export const protectedResourceWellKnown = '/.well-known/oauth-protected-resource';

/** MCPAUTH-2: the protected-resource metadata of the MCP endpoint. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: ['header'];
  resource_name: string;
}

export function protectedResourceMetadata(oauth: McpOAuthConfig): ProtectedResourceMetadata {
  return { resource: oauth.resource, authorization_servers: [oauth.issuer], bearer_methods_supported: ['header'], resource_name: 'Tessera MCP' };
}

/**
 * MCPAUTH-3: the URL of the metadata (RFC 9728 section 3.1): the well-known path inserted between the resource's
 * host and its path, so `https://host/api/mcp` has its metadata at `https://host/.well-known/oauth-protected-resource/api/mcp`.
 */
export function resourceMetadataUrl(oauth: McpOAuthConfig): string {
  const url = new URL(oauth.resource);
  return `${url.origin}${protectedResourceWellKnown}${url.pathname}`;
}

const quoted = (value: string) => `"${value.replace(/["\\]/g, '')}"`;

/**
 * MCPAUTH-3: the challenge of the MCP endpoint's 401s when OAuth is on: `Bearer resource_metadata="<url>"`, with
 * `error="invalid_token"` and a description when the request sent a credential that did not authenticate (RFC 6750
 * section 3.1).
 */
export function bearerChallenge(oauth: McpOAuthConfig, invalid: { description: string } | null): string {
  const params = invalid ? [`error="invalid_token"`, `error_description=${quoted(invalid.description)}`] : [];
  return `Bearer ${[...params, `resource_metadata=${quoted(resourceMetadataUrl(oauth))}`].join(', ')}`;
}

/**
 * MCPAUTH-5: whether a bearer credential is a JWT (three base64url segments, the first a JSON header) rather than an
 * API key (`<id>.<token>`, one dot): only a JWT is checked against the provider.
 */
export function looksLikeJwt(value: string): boolean {
  const parts = value.split('.');
  if (parts.length !== 3 || !parts.every((part) => /^[A-Za-z0-9_-]+$/.test(part))) return false;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as unknown;
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}
