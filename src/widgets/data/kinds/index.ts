/** LIVE-2: the widget kinds that draw live data, by widget kind. One import and one entry per kind file. */
import type { LiveKind } from '../types';
import { customApiKind } from './customApi';
import { dockerContainersKind } from './dockerContainers';

export const liveKinds: readonly LiveKind[] = [customApiKind as LiveKind, dockerContainersKind as LiveKind];
