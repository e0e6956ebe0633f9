import { createActor } from '../support/actors';
import { eventually } from '../support/eventually';
import { qbittorrentAddMagnet, qbittorrentLogin, startQbittorrent, startTimeoutMs, type RunningDaemon } from '../support/services/downloads';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectError } from '../support/expect';
import { expectOk, item, position } from '../boards-document/helpers';

/**
 * WDATA-1, WDATA-9, SECRET-5 end to end with the downloads kind (another engineer's) and a real qBittorrent: the
 * credentials stored as secrets reach the daemon through the widget request path, the torrent's name comes back, and
 * a holder of interact pauses it through the actions route.
 */
const server = useTestServer({}, { captureLog: true });
let daemon: RunningDaemon;
const magnet = 'magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567&dn=tessera-live-core-test';

beforeAll(async () => {
  daemon = await startQbittorrent();
  await qbittorrentAddMagnet(daemon, magnet);
}, startTimeoutMs + 30_000);
afterAll(async () => {
  await daemon?.stop();
});

it('WDATA-1, SECRET-5: a viewer of a public board sees the torrent of a real qBittorrent; the password is in no answer or log line', async () => {
  const integrationId = expectOk(
    await server.call('POST', '/api/integrations', {
      body: { name: unique('qbt'), kind: 'qBittorrent', url: daemon.url, secrets: [{ kind: 'username', value: qbittorrentLogin.username }, { kind: 'password', value: qbittorrentLogin.password }] },
    }),
    201,
  ).integrationId;
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('dl-'), columnCount: 12, isPublic: true } }), 201);
  const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const itemId = unique('dl');
  expectOk(
    await server.call('PUT', `/api/boards/${boardId}`, {
      body: { sections: doc.sections, items: [item(itemId, [position(doc.layouts[0].id, doc.sections[0].id, 0, 0, 4, 2)], { kind: 'downloads', integrationIds: [integrationId] })] },
    }),
  );
  const answer = await eventually(async () => {
    const read = expectOk(await server.call('GET', `/api/boards/${boardId}/items/${itemId}/data`, { key: null }));
    if (read.results[0]?.status !== 'ok') throw new Error(JSON.stringify(read.results[0]));
    return read;
  });
  const text = JSON.stringify(answer);
  expect(text).toContain('tessera-live-core-test');
  expect(answer.results[0].actions).toEqual([]);
  const admin = expectOk(await server.call('GET', `/api/boards/${boardId}/items/${itemId}/data`));
  expect(admin.results[0].actions).toEqual(expect.arrayContaining(['pause', 'resume']));
  const viewer = await createActor(server);
  const act = (key: string) => server.call('POST', `/api/boards/${boardId}/items/${itemId}/data/actions`, { key, body: { integrationId, action: 'resume', ids: ['0123456789abcdef0123456789abcdef01234567'] } });
  expectError(await act(viewer.key), 403, 'FORBIDDEN', 'Permission denied');
  expect(expectOk(await act(server.adminKey))).toMatchObject({ status: 'ok', message: null });
  for (const line of server.logLines) expect(line).not.toContain(qbittorrentLogin.password);
  expect(text).not.toContain(qbittorrentLogin.password);
}, 120_000);
