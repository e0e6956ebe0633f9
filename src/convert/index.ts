/** The converters from other dashboards (CONV-*), by source format. */
import type { ConvertInput, ConvertOptions, ConvertResult } from './common';
import { convertDashy } from './dashy';
import { convertGlance } from './glance';
import { convertHomarr, convertHomarrApi as convertHomarrApiFiles } from './homarr';
export { homarrApiFiles } from './homarr';
import { convertHomepage } from './homepage';
import { withVisibility } from './visibility';

export type { ConvertInput, ConvertOptions, ConvertResult } from './common';
export { ConvertError, convertLimits } from './source';
export { iconSets, defaultIconBases, type IconBases, type IconSet } from './icons';
export type { ConvertReport, ReportEntry } from './report';
export { redactSecrets } from './report';

export const converters: Record<string, (input: ConvertInput, options?: ConvertOptions) => ConvertResult> = {
  homepage: withVisibility(convertHomepage),
  dashy: withVisibility(convertDashy),
  glance: withVisibility(convertGlance),
  homarr: withVisibility(convertHomarr),
};

/** CONV-7: a running Homarr v1's answers (read by the CLI) to board files. */
export const convertHomarrApi = withVisibility(convertHomarrApiFiles);

export const convertFormats = Object.keys(converters);
