/** FLEET-10: which files of a directory are board files, the same for the CLI's `-f <dir>`, export/import and provisioning. */
import { readdirSync } from 'node:fs';
import path from 'node:path';

export const boardFileExtensions = ['.yaml', '.yml', '.json'];

/** The report `tessera convert` writes beside the board files it made (CONV-3): not a board file. */
export const convertReportFileName = 'convert-report.json';

/** The report `tessera discover` writes beside the board files it made (DISC-12): not a board file either. */
export const discoverReportFileName = 'discover-report.json';

/**
 * A board file by its name: YAML or JSON, not hidden (editors keep their swap and backup files hidden beside the file),
 * and not the converter's or discovery's report.
 */
export function isBoardFileName(name: string): boolean {
  return boardFileExtensions.includes(path.extname(name).toLowerCase()) && !name.startsWith('.') && name !== convertReportFileName && name !== discoverReportFileName;
}

/** The board files directly in a directory, by name, sorted (so plans list them in a stable order). */
export function boardFileNamesIn(dir: string): string[] {
  return readdirSync(dir).filter(isBoardFileName).sort();
}
