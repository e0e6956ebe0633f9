/** LIVE-2: the widget kinds that draw live data, by widget kind. One import and one entry per kind file. */
import type { LiveKind } from '../types';
import { calendarKind } from './calendar';
import { customApiKind } from './customApi';
import { dockerContainersKind } from './dockerContainers';
import { downloadsKind } from './downloads';
import { healthMonitoring, systemDisks, systemResources } from './glances';
import { rssFeedKind } from './rssFeed';
import { clockKind, weatherKind } from './weather';

export const liveKinds: readonly LiveKind[] = [
  downloadsKind as LiveKind,
  calendarKind,
  rssFeedKind,
  weatherKind,
  clockKind,
  customApiKind as LiveKind,
  dockerContainersKind as LiveKind,
  systemResources as LiveKind,
  healthMonitoring as LiveKind,
  systemDisks as LiveKind,
];
