/**
 * SECRET-1: which secret kinds each integration kind takes, as data: the sets it accepts (one of them, whole). Where
 * Homarr's integration definitions list the kind, these are its sets; the kinds Homarr's definitions do not list
 * (glances, ical, …) are Tessera's reading of the service's API (none where the API needs no credential).
 * Pure rules, no I/O.
 */
import { badRequest } from '../../core/errors';
import type { SecretKind } from '../clients/types';
import type { IntegrationKind } from '../kinds';

export const secretKinds: readonly SecretKind[] = [
  'username', 'password', 'apiKey', 'tokenId', 'realm', 'personalAccessToken', 'topic', 'opnsenseApiKey', 'opnsenseApiSecret', 'privateKey', 'githubAppId', 'githubInstallationId',
];

const none: SecretKind[] = [];
const apiKey: SecretKind[] = ['apiKey'];
const login: SecretKind[] = ['username', 'password'];

export const secretKindSets: Record<IntegrationKind, readonly (readonly SecretKind[])[]> = {
  sabNzbd: [apiKey],
  nzbGet: [login],
  deluge: [['password']],
  transmission: [login],
  qBittorrent: [login],
  aria2: [none, apiKey],
  slskd: [apiKey],
  sonarr: [apiKey],
  radarr: [apiKey],
  lidarr: [apiKey],
  readarr: [apiKey],
  prowlarr: [apiKey],
  bazarr: [apiKey],
  jellyfin: [login, apiKey],
  emby: [apiKey],
  plex: [apiKey],
  jellyseerr: [apiKey],
  seerr: [apiKey],
  overseerr: [apiKey],
  piHole: [apiKey],
  adGuardHome: [login],
  technitiumDns: [apiKey],
  homeAssistant: [apiKey],
  openmediavault: [login],
  dashDot: [none],
  glances: [none, login],
  tdarr: [none, apiKey],
  proxmox: [['username', 'tokenId', 'apiKey', 'realm']],
  nextcloud: [login],
  unifiController: [login],
  opnsense: [['opnsenseApiKey', 'opnsenseApiSecret']],
  ntfy: [['topic'], ['topic', 'apiKey']],
  gotify: [apiKey],
  // CAL-1: a calendar server may ask for HTTP basic auth (username and password), a public .ics for nothing.
  ical: [none, login],
  anchor: [apiKey],
  truenas: [apiKey],
  synology: [login],
  unraid: [apiKey],
  coolify: [apiKey],
  immich: [apiKey],
  paperlessNgx: [apiKey],
  patchmon: [apiKey],
  tracearr: [apiKey],
  speedtestTracker: [none, apiKey],
  uptimeKuma: [none, apiKey],
  audiobookshelf: [apiKey],
  navidrome: [login],
  umami: [login],
  peaNut: [none, login],
  beszel: [login],
  gluetun: [none, apiKey],
  traefik: [none, login],
  archiveTeamWarrior: [none],
  mock: [none],
};

/** One secret change: a value to store, or null to remove that kind (SECRET-4). */
export interface SecretChange {
  kind: SecretKind;
  value: string | null;
}

const describe = (sets: readonly (readonly SecretKind[])[]) => sets.map((set) => (set.length === 0 ? 'none' : set.join('+'))).join(', or ');

/**
 * SECRET-1, SECRET-4: the secret kinds an integration holds after a write (`held` before it, then `changes`), checked
 * against its kind's sets: each kind must be one the integration kind takes (400 naming the foreign ones), and what
 * is held must be one whole set (400 naming the missing kinds). Holding none at all is allowed for every kind
 * (credentials not entered yet; its widget data says so).
 */
export function planSecretKinds(kind: IntegrationKind, held: readonly string[], changes: readonly SecretChange[]): string[] {
  const duplicates = changes.map((c) => c.kind).filter((k, i, all) => all.indexOf(k) !== i);
  if (duplicates.length > 0) {
    throw badRequest(`Secret kinds given more than once: ${[...new Set(duplicates)].join(', ')}`, { duplicateKinds: [...new Set(duplicates)] });
  }
  const sets = secretKindSets[kind];
  const allowed = new Set(sets.flat());
  const foreign = changes.filter((c) => c.value !== null && !allowed.has(c.kind)).map((c) => c.kind);
  if (foreign.length > 0) {
    throw badRequest(`Secret kinds not used by ${kind}: ${foreign.join(', ')} (it takes ${describe(sets)})`, { foreignKinds: foreign });
  }
  const after = new Set(held);
  for (const change of changes) {
    if (change.value === null) after.delete(change.kind);
    else after.add(change.kind);
  }
  const result = [...after].sort();
  if (result.length === 0) return result;
  if (sets.some((set) => set.length === result.length && set.every((k) => after.has(k)))) return result;
  const supersets = sets.filter((set) => result.every((k) => set.includes(k as SecretKind))).sort((a, b) => a.length - b.length);
  if (supersets.length > 0) {
    const missing = supersets[0].filter((k) => !after.has(k));
    throw badRequest(`Missing secret kinds for ${kind}: ${missing.join(', ')}`, { missingKinds: missing });
  }
  throw badRequest(`Secret kinds ${result.join(', ')} do not go together for ${kind} (it takes ${describe(sets)})`, { heldKinds: result });
}
