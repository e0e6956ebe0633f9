/**
 * CONV-17: `--public` makes every board of a conversion public: anyone who reaches the instance sees it without
 * signing in, as a start page that opened without a login did. Said once per board in the report.
 */
import type { ConvertInput, ConvertOptions, ConvertResult } from './common';

type Converter = (input: ConvertInput, options?: ConvertOptions) => ConvertResult;

export const publicDetail =
  'public (--public): anyone who can reach this instance sees the board, its apps\' names, links and descriptions, without signing in; editing still needs an account';

/** The converter `convert`, its boards made public when the options say so. */
export function withVisibility(convert: Converter): Converter {
  return (input, options = {}) => {
    const result = convert(input, options);
    if (!options.public) return result;
    return {
      boards: result.boards.map((board) => ({ ...board, isPublic: true })),
      report: {
        ...result.report,
        entries: [
          ...result.report.entries,
          ...result.report.boards.map((board) => ({ file: board.file, at: '', object: board.name, field: 'isPublic', status: 'mapped' as const, detail: publicDetail })),
        ],
      },
    };
  };
}
