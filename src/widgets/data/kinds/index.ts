/** LIVE-2: the widget kinds that draw live data, by widget kind. One import and one entry per kind file. */
import type { LiveKind } from '../types';
import { downloadsKind } from './downloads';

export const liveKinds: readonly LiveKind[] = [downloadsKind as LiveKind];
