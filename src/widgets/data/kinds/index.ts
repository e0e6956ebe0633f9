/** LIVE-2: the widget kinds that draw live data, by widget kind. One import and one entry per kind file. */
import type { LiveKind } from '../types';
import { healthMonitoring, systemDisks, systemResources } from './glances';

export const liveKinds: readonly LiveKind[] = [systemResources as LiveKind, healthMonitoring as LiveKind, systemDisks as LiveKind];
