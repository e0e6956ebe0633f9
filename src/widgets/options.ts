/**
 * The options each widget kind defines, and their types (WIDGET-2): what a plan warns about (PLAN-4). Options are
 * stored as sent and never refused (PUT-9); these tables only say what is probably a mistake. Facts gathered from the
 * reference service's widget definitions (option names, value types, allowed values, bounds), in this project's own
 * format.
 */

/**
 * `boolean`, `string`, `string[]`, `number`, `array`: JSON types; `appId`: a string naming an app record; `appId[]`: a
 * list of them;
 * `location`: `{name, latitude, longitude}`; `any`: not checked; `oneOf`: one of the strings; `someOf`: a list of
 * them; `number`: a number within the bounds.
 */
export type OptionType =
  | 'boolean'
  | 'string'
  | 'string[]'
  | 'number'
  | 'array'
  | 'appId'
  | 'appId[]'
  | 'location'
  | 'any'
  | { oneOf: readonly string[] }
  | { someOf: readonly string[] }
  | { number: { min?: number; max?: number } };

export const widgetOptions: Readonly<Record<string, Readonly<Record<string, OptionType>>>> = {
  'anchorNote': {
    noteId: 'string',
    showTitle: 'boolean',
    showUpdatedAt: 'boolean',
  },
  'app': {
    appId: 'appId',
    openInNewTab: 'boolean',
    showTitle: 'boolean',
    descriptionDisplayMode: { oneOf: ['normal', 'tooltip', 'hidden'] },
    layout: { oneOf: ['column', 'column-reverse', 'row', 'row-reverse'] },
    pingEnabled: 'boolean',
  },
  'archiveTeamWarrior': {
    showBroadcastMessage: 'boolean',
  },
  'audioStats': {
    showArtists: 'boolean',
    showAlbums: 'boolean',
    showSongs: 'boolean',
    showLibraryCount: 'boolean',
    showAudiobooks: 'boolean',
    showPodcasts: 'boolean',
    showListeningTime: 'boolean',
    showActiveSessions: 'boolean',
    compactMode: 'boolean',
  },
  'bazarr': {
    showMissingEpisodes: 'boolean',
    showMissingMovies: 'boolean',
    showProviderIssues: 'boolean',
    showHealthIssues: 'boolean',
  },
  'beszelAlerts': {
    showHistory: 'boolean',
    maxHistoryItems: { number: { min: 1, max: 100 } },
  },
  'beszelSystemGrid': {
    statusFilter: 'any',
    showCpu: 'boolean',
    showMemory: 'boolean',
    showDisk: 'boolean',
    showGpu: 'boolean',
    showLoadAvg: 'boolean',
    showNet: 'boolean',
    showTemp: 'boolean',
    showBattery: 'boolean',
    showServices: 'boolean',
    showUptime: 'boolean',
    showAgent: 'boolean',
  },
  'beszelSystemStats': {
    systemId: 'string',
    timePeriod: 'any',
    showCpu: 'boolean',
    showMemory: 'boolean',
    showDisk: 'boolean',
    showDiskIO: 'boolean',
    showNetwork: 'boolean',
    showDockerCpu: 'boolean',
    showDockerMemory: 'boolean',
    showDockerNetwork: 'boolean',
  },
  'beszelSystemTable': {
    statusFilter: 'any',
    sortBy: 'any',
    sortDirection: 'any',
    showCpu: 'boolean',
    showMemory: 'boolean',
    showDisk: 'boolean',
    showGpu: 'boolean',
    showLoadAvg: 'boolean',
    showNet: 'boolean',
    showTemp: 'boolean',
    showBattery: 'boolean',
    showServices: 'boolean',
    showUptime: 'boolean',
    showAgent: 'boolean',
    columnOrder: 'string',
    columnWidths: 'string',
  },
  'bookmarks': {
    title: 'string',
    layout: { oneOf: ['grid', 'gridHorizontal', 'row', 'column'] },
    hideTitle: 'boolean',
    hideIcon: 'boolean',
    hideHostname: 'boolean',
    openNewTab: 'boolean',
    withBorder: 'boolean',
    items: 'appId[]',
  },
  'calendar': {
    releaseType: 'string[]',
    filterPastMonths: { number: { min: 2, max: 9999 } },
    filterFutureMonths: { number: { min: 2, max: 9999 } },
    showUnmonitored: 'boolean',
  },
  'clock': {
    customTitleToggle: 'boolean',
    customTitle: 'string',
    is24HourFormat: 'boolean',
    showSeconds: 'boolean',
    useCustomTimezone: 'boolean',
    timezone: 'any',
    showDate: 'boolean',
    dateFormat: { oneOf: ['dddd, MMMM D', 'dddd, D MMMM', 'MMM D', 'D MMM', 'DD/MM/YYYY', 'MM/DD/YYYY', 'DD/MM', 'MM/DD'] },
    customTimeFormat: 'string',
    customDateFormat: 'string',
    showWeather: 'boolean',
    weatherLocation: 'location',
    isWeatherFormatFahrenheit: 'boolean',
  },
  'coolify': {
    showServers: 'boolean',
    showApplications: 'boolean',
    showServices: 'boolean',
  },
  'customApi': {
    definitionId: 'string',
    refreshInterval: { number: { min: 1, max: 3600 } },
  },
  'dnsHoleControls': {
    showToggleAllButtons: 'boolean',
  },
  'dnsHoleSummary': {
    usePiHoleColors: 'boolean',
    layout: { oneOf: ['grid', 'row', 'column'] },
  },
  'dockerContainers': {
    columns: 'string[]',
    enableRowSorting: 'boolean',
    defaultSort: 'any',
    descendingDefaultSort: 'boolean',
    columnOrder: 'string',
    columnWidths: 'string',
  },
  'downloads': {
    columns: 'string[]',
    defaultSort: 'any',
    descendingDefaultSort: 'boolean',
    showCompletedUsenet: 'boolean',
    showCompletedTorrent: 'boolean',
    showCompletedHttp: 'boolean',
    activeTorrentThreshold: { number: { min: 0 } },
    categoryFilter: 'string[]',
    filterIsWhitelist: 'boolean',
    applyFilterToRatio: 'boolean',
    limitPerIntegration: { number: { min: 1 } },
    columnOrder: 'string',
    columnWidths: 'string',
  },
  'firewall': {},
  'healthMonitoring': {
    fahrenheit: 'boolean',
    cpu: 'boolean',
    memory: 'boolean',
    gpu: 'boolean',
    showUptime: 'boolean',
    fileSystem: 'boolean',
    visibleStorageVolumes: 'string[]',
    visibleClusterSections: { someOf: ['node', 'qemu', 'lxc', 'storage'] },
    defaultTab: { oneOf: ['system', 'cluster'] },
    sectionIndicatorRequirement: { oneOf: ['all', 'any'] },
  },
  'iframe': {
    embedUrl: 'string',
    allowFullScreen: 'boolean',
    allowScrolling: 'boolean',
    allowPayment: 'boolean',
    allowAutoPlay: 'boolean',
    allowMicrophone: 'boolean',
    allowCamera: 'boolean',
    allowGeolocation: 'boolean',
    allowModals: 'boolean',
  },
  'immich-albumCarousel': {
    albumId: 'string',
    rotationIntervalSeconds: { number: { min: 1, max: 3600 } },
    showPhotoInfo: 'boolean',
    randomizePhotos: 'boolean',
  },
  'immich-serverStats': {
    showUsers: 'boolean',
    showPhotos: 'boolean',
    showVideos: 'boolean',
    showStorage: 'boolean',
  },
  'indexerManager': {
    openIndexerSiteInNewTab: 'boolean',
  },
  'mediaMissing': {
    showMissing: 'boolean',
    showQueued: 'boolean',
    pageSize: 'any',
  },
  'mediaReleases': {
    layout: { oneOf: ['backdrop', 'poster'] },
    showDescriptionTooltip: 'boolean',
    showType: 'boolean',
    showSource: 'boolean',
  },
  'mediaRequests-requestList': {
    linksTargetNewTab: 'boolean',
    statusFilter: 'string[]',
    recentDays: { number: { min: 0, max: 365 } },
  },
  'mediaRequests-requestStats': {},
  'mediaServer': {
    showOnlyPlaying: 'boolean',
    showBitrate: 'boolean',
    showLocation: 'boolean',
  },
  'mediaTranscoding': {
    defaultView: 'any',
    queuePageSize: { number: { min: 1, max: 30 } },
  },
  'minecraftServerStatus': {
    title: 'string',
    domain: 'string',
    isBedrockServer: 'boolean',
  },
  'networkControllerStatus': {
    content: { oneOf: ['wifi', 'wired'] },
  },
  'networkControllerSummary': {},
  'notebook': {
    showToolbar: 'boolean',
    allowReadOnlyCheck: 'boolean',
    content: 'string',
  },
  'notifications': {
    hideLogos: 'boolean',
  },
  'paperlessNgx': {
    showInboxRatio: 'boolean',
    showInboxRing: 'boolean',
    showDocumentsTotal: 'boolean',
    showDocumentsInbox: 'boolean',
    showCorrespondents: 'boolean',
    showTags: 'boolean',
    showDocumentTypes: 'boolean',
  },
  'patchmon': {
    showComplianceHero: 'boolean',
    showTotalHosts: 'boolean',
    showHostsNeedingUpdates: 'boolean',
    showSecurityUpdates: 'boolean',
    showUpToDateHosts: 'boolean',
    showHostsWithSecurityUpdates: 'boolean',
    showRecentUpdates24h: 'boolean',
    showTotalOutdatedPackages: 'boolean',
    showTotalRepos: 'boolean',
    enableThresholdColors: 'boolean',
    useCustomThresholds: 'boolean',
    hostsNeedingUpdatesThresholdMode: { oneOf: ['absolute', 'percent'] },
    hostsNeedingUpdatesWarningAt: { number: { min: 0 } },
    hostsNeedingUpdatesCriticalAt: { number: { min: 0 } },
    securityUpdatesThresholdMode: { oneOf: ['absolute', 'percent'] },
    securityUpdatesWarningAt: { number: { min: 0 } },
    securityUpdatesCriticalAt: { number: { min: 0 } },
    hostsWithSecurityUpdatesThresholdMode: { oneOf: ['absolute', 'percent'] },
    hostsWithSecurityUpdatesWarningAt: { number: { min: 0 } },
    hostsWithSecurityUpdatesCriticalAt: { number: { min: 0 } },
    upToDateHostsThresholdMode: { oneOf: ['absolute', 'percent'] },
    upToDateHostsWarningAt: { number: { min: 0 } },
    upToDateHostsCriticalAt: { number: { min: 0 } },
    totalOutdatedPackagesThresholdMode: { oneOf: ['absolute', 'percent'] },
    totalOutdatedPackagesWarningAt: { number: { min: 0 } },
    totalOutdatedPackagesCriticalAt: { number: { min: 0 } },
    showOsDistribution: 'boolean',
    osDisplayMode: { oneOf: ['bars', 'donut'] },
    osDistributionLimit: { oneOf: ['3', '5', '10', '0'] },
    showOsVersion: 'boolean',
  },
  'releases': {
    newReleaseWithin: 'string',
    staleReleaseWithin: 'string',
    showOnlyHighlighted: 'boolean',
    showDetails: 'boolean',
    showOnlyIcon: 'boolean',
    topReleases: { number: { min: 0 } },
    repositories: 'array',
  },
  'rssFeed': {
    feedUrls: 'string[]',
    enableRtl: 'boolean',
    textLinesClamp: { number: { min: 1, max: 50 } },
    maximumAmountPosts: { number: { min: 1, max: 9999 } },
    hideDescription: 'boolean',
    showPosterImage: 'boolean',
  },
  'smartHome-entityState': {
    entityId: 'string',
    displayName: 'string',
    entityUnit: 'string',
    clickable: 'boolean',
  },
  'smartHome-executeAutomation': {
    displayName: 'string',
    automationId: 'string',
  },
  'speedtestTracker': {
    showLatestResult: 'boolean',
    showStats: 'boolean',
    showRecentResults: 'boolean',
    showPingGraph: 'boolean',
  },
  'stockPrice': {
    stock: 'string',
    timeRange: 'any',
    timeInterval: 'any',
  },
  'systemDisks': {
    showTemperatureIfAvailable: 'boolean',
    displayMode: { oneOf: ['percentage', 'absolute', 'free'] },
    showBackgroundBar: 'boolean',
    visibleStorageVolumes: 'string[]',
  },
  'systemResources': {
    hasShadow: 'boolean',
    visibleCharts: { someOf: ['cpu', 'memory', 'gpu', 'network'] },
    labelDisplayMode: 'any',
  },
  'timetable': {
    baseUrl: 'string',
    station: 'any',
  },
  'tracearr': {
    showStreams: 'boolean',
    showStats: 'boolean',
    showRecentActivity: 'boolean',
    showViolations: 'boolean',
  },
  'traefik': {
    showTcp: 'boolean',
    showUdp: 'boolean',
    showEntryPoints: 'boolean',
  },
  'umami': {
    websiteId: 'string',
    timeFrame: 'any',
    viewMode: { oneOf: ['chart', 'events', 'topPages', 'topReferrers'] },
    chartType: { oneOf: ['bar', 'sparkline'] },
    chartStyle: { oneOf: ['grouped', 'overlay'] },
    eventName: 'string',
    eventNames: 'string[]',
    topCount: { number: { min: 1, max: 500 } },
  },
  'ups': {
    showBattery: 'boolean',
    showLoad: 'boolean',
    showVoltage: 'boolean',
  },
  'uptimeKuma': {
    showAverageUptime: 'boolean',
    showUptimeRing: 'boolean',
    showTotalMonitors: 'boolean',
    showUpCount: 'boolean',
    showDownCount: 'boolean',
    showPausedCount: 'boolean',
  },
  'video': {
    feedUrl: 'string',
    hasAutoPlay: 'boolean',
    isMuted: 'boolean',
    hasControls: 'boolean',
  },
  'vpn': {},
  'weather': {
    isFormatFahrenheit: 'boolean',
    disableTemperatureDecimals: 'boolean',
    showCurrentWindSpeed: 'boolean',
    useImperialSpeed: 'boolean',
    location: 'location',
    dateFormat: { oneOf: ['dddd, MMMM D', 'dddd, D MMMM', 'MMM D', 'D MMM', 'DD/MM/YYYY', 'MM/DD/YYYY', 'DD/MM', 'MM/DD'] },
    showCity: 'boolean',
    hasForecast: 'boolean',
    forecastDayCount: { number: { min: 1, max: 7 } },
  },
};

/** An option of a widget kind that names apps (APP-3, FILE-8): one app id, or a list of them. */
export interface AppOption {
  name: string;
  list: boolean;
}

/** The options of each kind of the table that name apps, in the table's order (asked for every item of a board). */
const appOptionsByKind = new Map(
  Object.entries(widgetOptions).map(([kind, table]) => [
    kind,
    Object.entries(table).flatMap(([name, type]): AppOption[] => (type === 'appId' ? [{ name, list: false }] : type === 'appId[]' ? [{ name, list: true }] : [])),
  ]),
);

/** The options of `kind` that name apps, in the table's order; none for kinds without a table. */
export function appOptions(kind: string): readonly AppOption[] {
  return appOptionsByKind.get(kind) ?? [];
}

export interface OptionIssue {
  code: 'UNKNOWN_OPTION' | 'OPTION_TYPE';
  /** JSON pointer from the item (`/options/<name>`). */
  path: string;
  message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `value` fits `type`; the reason when it does not. */
function mismatch(type: OptionType, value: unknown): string | null {
  if (type === 'any') return null;
  if (type === 'boolean' || type === 'string' || type === 'number') return typeof value === type ? null : `expects a ${type}`;
  if (type === 'appId') return typeof value === 'string' ? null : 'expects an app id (a string)';
  if (type === 'appId[]') return Array.isArray(value) && value.every((entry) => typeof entry === 'string') ? null : 'expects a list of app ids (strings)';
  if (type === 'array') return Array.isArray(value) ? null : 'expects a list';
  if (type === 'string[]') return Array.isArray(value) && value.every((entry) => typeof entry === 'string') ? null : 'expects a list of strings';
  if (type === 'location') {
    const fits = isObject(value) && typeof value.name === 'string' && typeof value.latitude === 'number' && typeof value.longitude === 'number';
    return fits ? null : 'expects {name, latitude, longitude}';
  }
  if ('oneOf' in type) return typeof value === 'string' && type.oneOf.includes(value) ? null : `expects one of ${type.oneOf.map((v) => `"${v}"`).join(', ')}`;
  if ('someOf' in type) {
    const fits = Array.isArray(value) && value.every((entry) => typeof entry === 'string' && type.someOf.includes(entry));
    return fits ? null : `expects a list of ${type.someOf.map((v) => `"${v}"`).join(', ')}`;
  }
  const { min, max } = type.number;
  if (typeof value !== 'number') return 'expects a number';
  if ((min !== undefined && value < min) || (max !== undefined && value > max)) return `expects a number from ${min ?? '-∞'} to ${max ?? '∞'}`;
  return null;
}

/** Edit distance of two names (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/** The defined option a misspelled name most likely meant: the same name in another case, else one within two edits. */
function suggestion(name: string, defined: readonly string[]): string | undefined {
  const sameCase = defined.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  if (sameCase) return sameCase;
  const scored = defined.map((candidate) => ({ candidate, d: distance(name.toLowerCase(), candidate.toLowerCase()) })).filter((s) => s.d <= 2);
  return scored.sort((x, y) => x.d - y.d)[0]?.candidate;
}

const pointer = (name: string) => `/options/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * What is probably wrong with a widget's options (WIDGET-2): names its kind does not define (with the defined name
 * meant, when one is close) and values of the wrong type. Kinds without a table are not checked. Never throws.
 */
export function optionIssues(kind: string, options: unknown): OptionIssue[] {
  const table = widgetOptions[kind];
  if (!table || !isObject(options)) return [];
  const defined = Object.keys(table);
  const issues: OptionIssue[] = [];
  for (const [name, value] of Object.entries(options)) {
    const type = Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined;
    if (type === undefined) {
      const meant = suggestion(name, defined);
      issues.push({
        code: 'UNKNOWN_OPTION',
        path: pointer(name),
        message: `option "${name}" is not an option of ${kind} widgets${meant ? ` (did you mean "${meant}"?)` : ''}`,
      });
      continue;
    }
    const reason = mismatch(type, value);
    if (reason) issues.push({ code: 'OPTION_TYPE', path: pointer(name), message: `option "${name}" ${reason}, got ${JSON.stringify(value)?.slice(0, 60)}` });
  }
  return issues;
}
