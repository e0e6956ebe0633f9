/** LIVE-2: the widget kinds that draw live data, by widget kind. One import and one entry per kind file. */
import type { LiveKind } from '../types';
import { dockerContainersKind } from './dockerContainers';

export const liveKinds: readonly LiveKind[] = [dockerContainersKind as LiveKind];
