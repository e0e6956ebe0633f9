/**
 * Widget kinds known to this build (WIDGET-1): each kind's supported integration kinds and default
 * size. Default sizes are 1x1 unless listed. Items of a kind missing here are skipped on read and never
 * deleted or updated by a save (PUT-13, DOC-3). The `WidgetKind` enum of the OpenAPI document must list
 * exactly these kinds (a test checks it).
 */
export interface WidgetDefinition {
  kind: string;
  /** Integration kinds the widget can show data of (empty: the widget takes no integration). */
  integrationKinds: readonly string[];
  /** The definition sets integrationsRequired. */
  integrationsRequired: boolean;
  /** Default size in grid cells, used by POST /api/boards/items. */
  defaultSize: { width: number; height: number };
}

const dnsHole = ['piHole', 'adGuardHome', 'technitiumDns', 'mock'];
const mediaRequests = ['jellyseerr', 'seerr', 'overseerr', 'mock'];
const beszel = ['beszel', 'mock'];

type Entry = [kind: string, integrationKinds: string[], options?: { required?: boolean; size?: [number, number] }];

const entries: Entry[] = [
  ['clock', []],
  ['weather', []],
  ['app', []],
  ['iframe', []],
  ['video', []],
  ['notebook', []],
  ['anchorNote', ['anchor']],
  ['dnsHoleSummary', dnsHole],
  ['dnsHoleControls', dnsHole],
  ['smartHome-entityState', ['homeAssistant', 'mock']],
  ['smartHome-executeAutomation', ['homeAssistant', 'mock']],
  ['stockPrice', []],
  ['mediaServer', ['jellyfin', 'emby', 'plex', 'navidrome', 'mock']],
  ['calendar', ['sonarr', 'radarr', 'lidarr', 'readarr', 'homeAssistant', 'nextcloud', 'ical', 'mock']],
  ['downloads', ['sabNzbd', 'nzbGet', 'deluge', 'transmission', 'qBittorrent', 'aria2', 'slskd', 'mock']],
  ['mediaRequests-requestList', mediaRequests],
  ['mediaRequests-requestStats', mediaRequests],
  ['mediaTranscoding', ['tdarr', 'mock']],
  ['mediaMissing', ['sonarr', 'radarr', 'mock'], { size: [4, 3] }],
  ['minecraftServerStatus', []],
  ['networkControllerSummary', ['unifiController', 'mock']],
  ['networkControllerStatus', ['unifiController', 'mock']],
  ['rssFeed', []],
  ['bookmarks', []],
  ['indexerManager', ['prowlarr', 'mock']],
  ['healthMonitoring', ['openmediavault', 'dashDot', 'glances', 'proxmox', 'truenas', 'synology', 'unraid', 'coolify', 'mock']],
  ['releases', []],
  ['mediaReleases', ['mock', 'emby', 'jellyfin', 'plex']],
  ['dockerContainers', []],
  ['firewall', ['opnsense']],
  ['notifications', ['nextcloud', 'ntfy', 'gotify', 'mock']],
  ['systemResources', ['dashDot', 'openmediavault', 'truenas', 'unraid', 'glances', 'synology']],
  ['coolify', ['coolify']],
  ['systemDisks', ['dashDot', 'openmediavault', 'truenas', 'unraid', 'synology', 'glances']],
  ['timetable', []],
  ['immich-serverStats', ['immich'], { required: true }],
  ['immich-albumCarousel', ['immich'], { required: true }],
  ['paperlessNgx', ['paperlessNgx'], { required: true, size: [2, 2] }],
  ['patchmon', ['patchmon'], { required: true, size: [2, 2] }],
  ['bazarr', ['bazarr'], { required: true, size: [2, 2] }],
  ['tracearr', ['tracearr']],
  ['speedtestTracker', ['speedtestTracker']],
  ['uptimeKuma', ['uptimeKuma'], { size: [2, 3] }],
  ['audioStats', ['navidrome', 'audiobookshelf'], { required: true, size: [2, 2] }],
  ['umami', ['umami']],
  ['vpn', ['gluetun']],
  ['archiveTeamWarrior', ['archiveTeamWarrior']],
  ['ups', ['peaNut', 'mock']],
  ['beszelSystemTable', beszel, { required: true }],
  ['beszelSystemGrid', beszel, { required: true }],
  ['beszelAlerts', beszel, { required: true }],
  ['beszelSystemStats', beszel, { required: true }],
  ['traefik', ['traefik']],
  ['customApi', []],
];

export const widgetDefinitions: ReadonlyMap<string, WidgetDefinition> = new Map(
  entries.map(([kind, integrationKinds, options]) => [
    kind,
    {
      kind,
      integrationKinds,
      integrationsRequired: options?.required ?? false,
      defaultSize: { width: options?.size?.[0] ?? 1, height: options?.size?.[1] ?? 1 },
    },
  ]),
);

export const widgetKinds: readonly string[] = entries.map(([kind]) => kind);

export function isKnownWidgetKind(kind: string): boolean {
  return widgetDefinitions.has(kind);
}

/** The widget's default size; 1x1 for kinds without one (and for unknown kinds). */
export function widgetDefaultSize(kind: string): { width: number; height: number } {
  return widgetDefinitions.get(kind)?.defaultSize ?? { width: 1, height: 1 };
}
