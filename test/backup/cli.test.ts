/**
 * `tessera backup` and `tessera restore` as processes on embedded databases in DATA_DIR (BACKUP-1, BACKUP-4, BACKUP-5);
 * the move between engines is tested on the functions they call (backup.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expectStatus, runTessera } from '../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'tessera-backup-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = (name: string) => {
  const { DATABASE_URL: _url, ...rest } = process.env;
  return { ...rest, DATA_DIR: path.join(dir, name), LOG_LEVEL: 'silent' };
};

describe('tessera backup / restore (BACKUP-1, BACKUP-4, BACKUP-5)', () => {
  const file = path.join(dir, 'instance.tessera-backup');

  it('backs up one data directory and restores it into another; a second restore needs --force; a foreign file is refused', async () => {
    expectStatus(await runTessera(['users', 'create', 'carol', '--password', 'carol-pass-1'], env('a')), 0);
    const backup = await runTessera(['backup', '-o', file], env('a'));
    expectStatus(backup, 0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ file, tables: { users: 2 }, excluded: { sessions: expect.any(String) } });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const restore = await runTessera(['restore', file], env('b'));
    expectStatus(restore, 0);
    expect(JSON.parse(restore.stdout)).toMatchObject({ restored: file, from: 'pglite', tables: { users: 2 }, replaced: {} });
    const users = await runTessera(['users', 'list'], env('b'));
    expect(JSON.parse(users.stdout).map((u: { username: string }) => u.username).sort()).toEqual(['admin', 'carol']);

    const again = await runTessera(['restore', file], env('b'));
    expectStatus(again, 1);
    expect(again.stderr).toBe(
      'tessera: The database is not empty (api_keys (1), audit_log (1), group_members (1), group_permissions (1), groups (1), users (2)): restore with --force to replace everything it holds\n',
    );
    expectStatus(await runTessera(['restore', file, '--force'], env('b')), 0);

    const foreign = path.join(dir, 'board.json');
    writeFileSync(foreign, '{"apiVersion":"tessera/v1","kind":"Board"}');
    const refused = await runTessera(['restore', foreign], env('c'));
    expectStatus(refused, 1);
    expect(refused.stderr).toBe('tessera: Not a Tessera backup: the file does not start with "tessera-backup 1"\n');
    const truncated = path.join(dir, 'truncated');
    const bytes = readFileSync(file);
    writeFileSync(truncated, bytes.subarray(0, bytes.length - 10));
    expect((await runTessera(['restore', truncated], env('c'))).stderr).toMatch(/^tessera: Truncated backup: \d+ of \d+ payload bytes present\n$/);
    // Refused before the database was opened: no data directory was made.
    expect(() => statSync(path.join(dir, 'c'))).toThrow();
    const missing = await runTessera(['restore', path.join(dir, 'nothing-here')], env('c'));
    expectStatus(missing, 2);
  }, 180_000);
});
