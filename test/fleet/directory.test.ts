/** FLEET-10: which files of a directory are board files (the CLI's `-f <dir>`, `boards import`, provisioning). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { boardFileNamesIn } from '../../src/boards/files/directory';

describe('FLEET-10: the board files of a directory', () => {
  it('are its YAML and JSON files by name, without hidden files and the converter report', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-board-dir-'));
    try {
      for (const name of ['media.yaml', 'b.YML', 'a.json', 'notes.txt', '.media.yaml.swp', '.draft.yaml', 'convert-report.json', 'README.md']) {
        writeFileSync(path.join(dir, name), '{}');
      }
      expect(boardFileNamesIn(dir)).toEqual(['a.json', 'b.YML', 'media.yaml']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
