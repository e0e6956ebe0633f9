/** LIVEVIEW-1: the page's view of each live widget kind (the server's live kinds, src/widgets/data/kinds/). */
import type { LiveView } from './controller';
import type { LiveKindName } from './kinds';
import { calendarView } from './calendar';
import { dockerContainersView } from './containers';
import { customApiView } from './customApi';
import { downloadsView } from './downloads';
import { rssFeedView } from './feed';
import { healthMonitoringView, systemDisksView, systemResourcesView } from './system';
import { weatherView } from './weather';

export { clockWeatherView } from './weather';

/** One view per name of kinds.ts (the type keeps the two lists the same). */
export const liveViews: Readonly<Record<LiveKindName, LiveView>> = {
  downloads: downloadsView,
  systemResources: systemResourcesView,
  healthMonitoring: healthMonitoringView,
  systemDisks: systemDisksView,
  calendar: calendarView,
  rssFeed: rssFeedView,
  weather: weatherView,
  dockerContainers: dockerContainersView,
  customApi: customApiView,
};
