/** The converters from other dashboards (CONV-*), by source format. */
import type { ConvertInput, ConvertOptions, ConvertResult } from './common';
import { convertDashy } from './dashy';
import { convertGlance } from './glance';
import { convertHomarr } from './homarr';
export { convertHomarrApi, homarrApiFiles } from './homarr';
import { convertHomepage } from './homepage';

export type { ConvertInput, ConvertOptions, ConvertResult } from './common';
export { ConvertError, convertLimits } from './source';
export { iconSets, defaultIconBases, type IconBases, type IconSet } from './icons';
export type { ConvertReport, ReportEntry } from './report';
export { redactSecrets } from './report';

export const converters: Record<string, (input: ConvertInput, options?: ConvertOptions) => ConvertResult> = {
  homepage: convertHomepage,
  dashy: convertDashy,
  glance: convertGlance,
  homarr: convertHomarr,
};

export const convertFormats = Object.keys(converters);
