/**
 * PROV-7: provisioning reads only what it should, off the thread that serves requests, and never keeps the server from
 * starting. A directory holding a link to /dev/zero, a FIFO, a file past the byte cap and a link to a board file outside
 * the directory: the server listens and answers liveness, each such entry is refused and reported, and the good files
 * still apply. A directory with more files than the cap applies the first ones in name order and reports the rest.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { useTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectError, expectOk } from '../boards-document/helpers';
import { clockBoardFile } from '../support/boardFiles';
import { eventually } from '../support/eventually';

const root = mkdtempSync(path.join(os.tmpdir(), 'tessera-prov-attack-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const attacked = path.join(root, 'attacked');
const many = path.join(root, 'many');
mkdirSync(attacked);
mkdirSync(many);

const boardYaml = (name: string) => toYaml(clockBoardFile(name, 1, { stable: true }));
// Names are chosen so that the board files sort before and after the entries refused.
const goodA = unique('a-good-');
const goodZ = unique('z-good-');
writeFileSync(path.join(attacked, `${goodA}.yaml`), boardYaml(goodA));
writeFileSync(path.join(attacked, `${goodZ}.yaml`), boardYaml(goodZ));
symlinkSync('/dev/zero', path.join(attacked, 'm-zero.yaml'));
execFileSync('mkfifo', [path.join(attacked, 'm-fifo.yaml')]);
writeFileSync(path.join(attacked, 'm-big.yaml'), `${boardYaml(unique('big-'))}# ${'x'.repeat(70 * 1024)}\n`);
const outsideName = unique('outside-');
writeFileSync(path.join(root, 'outside.yaml'), boardYaml(outsideName));
symlinkSync(path.join(root, 'outside.yaml'), path.join(attacked, 'm-outside.yaml'));

const manyNames = [1, 2, 3, 4, 5].map((i) => `${unique(`many${i}-`)}`);
for (const name of manyNames) writeFileSync(path.join(many, `${name}.yaml`), boardYaml(name));

const attackedServer = useTestServer({ PROVISIONING_DIR: attacked, PROVISIONING_MAX_FILE_BYTES: '64kb', PROVISIONING_DEBOUNCE_MS: '100' });
const manyServer = useTestServer({ PROVISIONING_DIR: many, PROVISIONING_MAX_FILES: '3', PROVISIONING_DEBOUNCE_MS: '100' });

const boardNamed = async (server: TestServer, name: string) => server.db('boards').whereRaw('lower(name) = lower(?)', [name]).first('id', 'managedBy');
const statusOf = async (server: TestServer) => expectOk(await server.call('GET', '/api/provisioning')).sources;
const appliedStatus = (server: TestServer) =>
  eventually(async () => {
    const [status] = await statusOf(server);
    expect(status?.appliedAt).toEqual(expect.any(String));
    return status;
  });

describe('provisioning under attack (PROV-7)', () => {
  it('PROV-7: the server listens and answers liveness whatever the directory holds', async () => {
    for (const server of [attackedServer, manyServer]) {
      const live = await server.call('GET', '/api/health/live');
      expect(live.status).toBe(200);
    }
  });

  it('PROV-7: a link to /dev/zero, a FIFO, a file past the byte cap and a link out of the directory are refused and reported; the good files apply', async () => {
    const status = await appliedStatus(attackedServer);
    expect(status).toMatchObject({ ok: true, boards: 2, problems: [] });
    const refused = Object.fromEntries(status.refused.map((entry: { file: string; message: string }) => [path.basename(entry.file), entry]));
    expect(Object.keys(refused).sort()).toEqual(['m-big.yaml', 'm-fifo.yaml', 'm-outside.yaml', 'm-zero.yaml']);
    expect(refused['m-zero.yaml']).toEqual({ file: path.join(attacked, 'm-zero.yaml'), line: null, message: 'm-zero.yaml leads outside the provisioning directory (a link): refused, not read' });
    expect(refused['m-outside.yaml'].message).toBe('m-outside.yaml leads outside the provisioning directory (a link): refused, not read');
    expect(refused['m-fifo.yaml'].message).toBe('m-fifo.yaml is not a regular file (a FIFO, device, socket or directory): refused, not read');
    expect(refused['m-big.yaml'].message).toBe(`m-big.yaml is larger than ${64 * 1024} bytes: refused, not read`);
    for (const name of [goodA, goodZ]) expect(await boardNamed(attackedServer, name)).toMatchObject({ managedBy: 'provisioning:attacked' });
    expect(await boardNamed(attackedServer, outsideName)).toBeUndefined();
  });

  it('PROV-7: while an entry is refused nothing is pruned; once none is, the removed file\'s board is pruned', async () => {
    unlinkSync(path.join(attacked, `${goodZ}.yaml`));
    await eventually(async () => expect((await statusOf(attackedServer))[0]).toMatchObject({ ok: true, boards: 1 }));
    expect(await boardNamed(attackedServer, goodZ)).toBeDefined();
    for (const entry of ['m-zero.yaml', 'm-fifo.yaml', 'm-big.yaml', 'm-outside.yaml']) unlinkSync(path.join(attacked, entry));
    await eventually(async () => expect(await boardNamed(attackedServer, goodZ)).toBeUndefined());
    expect((await statusOf(attackedServer))[0]).toMatchObject({ ok: true, boards: 1, refused: [] });
    expect(await boardNamed(attackedServer, goodA)).toBeDefined();
  });

  it('PROV-7: more board files than PROVISIONING_MAX_FILES: the first ones in name order apply, the rest are one refused entry', async () => {
    const status = await appliedStatus(manyServer);
    const sorted = manyNames.map((name) => `${name}.yaml`).sort();
    expect(status).toMatchObject({ ok: true, boards: 3, problems: [] });
    expect(status.refused).toEqual([
      { file: path.join(many, sorted[3]), line: null, message: `2 board files past the first 3 (PROVISIONING_MAX_FILES), from ${sorted[3]} on in name order: refused, not read` },
    ]);
    for (const file of sorted.slice(0, 3)) expect(await boardNamed(manyServer, file.replace(/\.yaml$/, ''))).toBeDefined();
    for (const file of sorted.slice(3)) expect(await boardNamed(manyServer, file.replace(/\.yaml$/, ''))).toBeUndefined();
  });

  it('PROV-7, DRIFT-1: a provisioned board whose file became a FIFO: the drift read refuses it with a 409 instead of hanging', async () => {
    const [first] = manyNames.map((name) => `${name}.yaml`).sort();
    const board = await boardNamed(manyServer, first.replace(/\.yaml$/, ''));
    unlinkSync(path.join(many, first));
    execFileSync('mkfifo', [path.join(many, first)]);
    const drift = await manyServer.call('GET', `/api/boards/${board.id}/drift`);
    expect(drift.status).toBe(409);
    expect(drift.body).toEqual({ message: `Board file cannot be read: ${first} of provisioning:many`, code: 'CONFLICT', data: { file: first, source: 'provisioning:many' } });
    // The next apply refuses the FIFO and keeps the board (nothing is pruned while an entry is refused).
    await eventually(async () => expect((await statusOf(manyServer))[0].refused.map((entry: { file: string }) => path.basename(entry.file))).toContain(first));
    expect(await boardNamed(manyServer, first.replace(/\.yaml$/, ''))).toBeDefined();
    // It stays provisioned (PROV-5, PROV-7): its drift is still read from its file, which is still refused.
    expectError(await manyServer.call('GET', `/api/boards/${board.id}/drift`), 409, 'CONFLICT', `Board file cannot be read: ${first} of provisioning:many`);
  });
});
