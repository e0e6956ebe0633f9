import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

const server = useTestServer();

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'tessera-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.directUrl}/api/mcp`), { requestInit: { headers: { ApiKey: key } } }));
  return client;
}

describe('WDATA-10: the data operation as a read-only MCP tool', () => {
  it('WDATA-10: get_item_data answers what the REST operation answers, under the same binding rule', async () => {
    const integrationId = expectOk(await server.call('POST', '/api/integrations', { body: { name: unique('G'), kind: 'glances', url: 'http://127.0.0.1:1' } }), 201).integrationId;
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('mcp-live-'), columnCount: 12, isPublic: false } }), 201);
    const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
    const itemId = unique('it');
    expectOk(
      await server.call('PUT', `/api/boards/${boardId}`, {
        body: { sections: doc.sections, items: [item(itemId, [position(doc.layouts[0].id, doc.sections[0].id, 0, 0, 2, 2)], { kind: 'systemResources', integrationIds: [integrationId] })] },
      }),
    );
    const client = await connect(server.adminKey);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('get_item_data');
      const result = await client.callTool({ name: 'get_item_data', arguments: { id: boardId, itemId } });
      const answer = JSON.parse((result.content as { text: string }[])[0].text);
      expect(answer).toMatchObject({ itemId, kind: 'systemResources', live: true, results: [{ integrationId, status: 'error', message: expect.stringMatching(/unreachable/) }] });
      const rest = expectOk(await server.call('GET', `/api/boards/${boardId}/items/${itemId}/data`));
      expect(rest.results[0].fetchedAt).toBe(answer.results[0].fetchedAt);
    } finally {
      await client.close();
    }
    const stranger = await createActor(server);
    const other = await connect(stranger.key);
    try {
      const refused = await other.callTool({ name: 'get_item_data', arguments: { id: boardId, itemId } });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0].text).toMatch(/Board not found/);
    } finally {
      await other.close();
    }
  });
});
