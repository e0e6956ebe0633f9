/**
 * Integration kinds (INTEG-1), in the reference service's order. The order is the sort order of GET /api/integrations.
 * Keep in sync with IntegrationKind in openapi/components/integrations.yaml (a test compares them).
 */
export const integrationKinds = [
  'sabNzbd',
  'nzbGet',
  'deluge',
  'transmission',
  'qBittorrent',
  'aria2',
  'slskd',
  'sonarr',
  'radarr',
  'lidarr',
  'readarr',
  'prowlarr',
  'bazarr',
  'jellyfin',
  'emby',
  'plex',
  'jellyseerr',
  'seerr',
  'overseerr',
  'piHole',
  'adGuardHome',
  'technitiumDns',
  'homeAssistant',
  'openmediavault',
  'dashDot',
  'glances',
  'tdarr',
  'proxmox',
  'nextcloud',
  'unifiController',
  'opnsense',
  'ntfy',
  'gotify',
  'ical',
  'anchor',
  'truenas',
  'synology',
  'unraid',
  'coolify',
  'immich',
  'paperlessNgx',
  'patchmon',
  'tracearr',
  'speedtestTracker',
  'uptimeKuma',
  'audiobookshelf',
  'navidrome',
  'umami',
  'peaNut',
  'beszel',
  'gluetun',
  'traefik',
  'archiveTeamWarrior',
  'mock',
] as const;

export type IntegrationKind = (typeof integrationKinds)[number];

/** Position of a kind in the kind list (unknown kinds sort last). */
export function kindPosition(kind: string): number {
  const index = (integrationKinds as readonly string[]).indexOf(kind);
  return index === -1 ? integrationKinds.length : index;
}
