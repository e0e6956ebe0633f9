/**
 * DOCS-2 for docs/board-page.md: its shell examples run as written against a test server, on a board with a pinged
 * app widget (VIEW-2, PING-1).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readmeExamples, runReadmeExamples } from '../../scripts/readme-examples';
import { useTestServer } from '../support/server';
import { expectOk, item, position } from '../boards-document/helpers';
import { unique } from '../support/unique';

const guide = readFileSync(path.resolve(__dirname, '../../docs/board-page.md'), 'utf8');
const server = useTestServer({ PING_TIMEOUT_MS: '500' });

it('DOCS-2: docs/board-page.md examples run as written', async () => {
  expect(guide.startsWith('# ')).toBe(true);
  expect(readmeExamples(guide).filter((example) => example.run).length).toBe(2);
  const { appId } = expectOk(await server.call('POST', '/api/apps', { body: { name: unique('Doc app'), iconUrl: '/icon.png', pingUrl: 'http://127.0.0.1:9/' } }), 201);
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('doc-'), columnCount: 12, isPublic: false } }), 201);
  const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const widget = item(unique('app'), [position(doc.layouts[0].id, doc.sections[0].id)], { kind: 'app', options: { appId, pingEnabled: true } });
  expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections: doc.sections, items: [widget] } }));
  const runs = await runReadmeExamples({ baseUrl: server.directUrl, apiKey: server.adminKey, boardId }, guide);
  expect(runs.filter((run) => run.status !== 0).map((run) => run.output)).toEqual([]);
  const output = runs.map((run) => run.output).join('\n');
  expect(output).toContain(`"id":"${appId}"`);
  expect(output).toContain(`"appId":"${appId}","state":"down"`);
});
