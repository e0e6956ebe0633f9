/**
 * CONTRACT-3: where the server refuses a value by a rule a schema can state, the document states it, so that a
 * generator (schemathesis's positive_data_acceptance, a client's validator) never takes such a request for valid:
 * each case below is refused by the document's own schema and by the server, with the same 400. Found by an
 * independent schemathesis run with default expectations (issue 41).
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { integrationUrlPattern, isIntegrationUrl, webSearchUrlPattern } from '../../src/integrations/url';
import { webSearchUrlProblem } from '../../src/boards/settings';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';

const document = JSON.parse(readFileSync(path.resolve(__dirname, '../../generated/openapi.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
ajv.addFormat('int32', () => true).addFormat('int64', () => true).addFormat('password', () => true);
ajv.addSchema(document, 'openapi');
const validAgainst = (schema: string, value: unknown) => ajv.validate({ $ref: `openapi#/components/schemas/${schema}` }, value);

const server = useTestServer();

describe('CONTRACT-3: the document refuses what the server refuses', () => {
  const icon = 'https://cdn.example.com/i.svg';
  it.each([
    ['POST /api/apps: iconUrl blank after trimming', 'CreateAppRequest', 'POST', '/api/apps', { name: 'x', iconUrl: '   ' }],
    ['POST /api/apps: name blank after trimming', 'CreateAppRequest', 'POST', '/api/apps', { name: ' \u00a0 ', iconUrl: icon }],
    ['PATCH /api/apps: iconUrl blank after trimming', 'UpdateAppRequest', 'PATCH', '/api/apps/{id}', { iconUrl: '\t' }],
    ['POST /api/integrations: a url whose host is read as a number', 'CreateIntegrationRequest', 'POST', '/api/integrations', { name: 'x', kind: 'plex', url: 'http://a.1' }],
    ['POST /api/integrations: a url with an xn-- label', 'CreateIntegrationRequest', 'POST', '/api/integrations', { name: 'x', kind: 'plex', url: 'http://xn--a.example' }],
    ['POST /api/integrations: a url without a host', 'CreateIntegrationRequest', 'POST', '/api/integrations', { name: 'x', kind: 'plex', url: 'http://   ' }],
    ['POST /api/integrations: a port past 65535', 'CreateIntegrationRequest', 'POST', '/api/integrations', { name: 'x', kind: 'plex', url: 'http://a.example:65536' }],
    ['POST /api/integrations: a blank name', 'CreateIntegrationRequest', 'POST', '/api/integrations', { name: '  ', kind: 'plex', url: 'http://a.example' }],
  ])('%s', async (_name, schema, method, route, body) => {
    expect(validAgainst(schema, body)).toBe(false);
    let target = route;
    if (route.includes('{id}')) {
      const created = await server.call('POST', '/api/apps', { body: { name: unique('app'), iconUrl: icon } });
      target = route.replace('{id}', created.body.appId);
    }
    const answer = await server.call(method, target, { body });
    expect({ status: answer.status, message: answer.body.message, code: answer.body.code }).toEqual({ status: 400, message: 'Input validation failed', code: 'BAD_REQUEST' });
  });

  it('MCP: a method with NUL is refused by the document as by the server (a lone surrogate by the server: no common pattern engine takes one)', async () => {
    expect(validAgainst('McpMessage', { jsonrpc: '2.0', id: 1, method: 'tools/list\u0000' })).toBe(false);
    for (const method of ['tools/list\u0000', 'tools/\ud800list']) {
      const message = { jsonrpc: '2.0', id: 1, method };
      const answer = await server.call('POST', '/api/mcp', { body: message, headers: { Accept: 'application/json, text/event-stream' } });
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 400, code: 'BAD_REQUEST' });
    }
  });

  it('tRPC: the GET `input` parameter is declared as JSON (content: application/json), the envelope its schema', async () => {
    const input = document.paths['/api/trpc/{procedures}'].get.parameters.find((parameter: { name: string }) => parameter.name === 'input');
    expect(input.schema).toBeUndefined();
    expect(input.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TrpcQueryInput' });
    expect(validAgainst('TrpcQueryInput', { json: { name: 'home-lab' } })).toBe(true);
    expect(validAgainst('TrpcQueryInput', { 0: { json: null, meta: { values: ['undefined'], v: 1 } }, 1: { json: {} } })).toBe(true);
    expect(validAgainst('TrpcQueryInput', 'home-lab')).toBe(false);
    const answer = await server.call('GET', `/api/trpc/board.getAllBoards?input=${encodeURIComponent(JSON.stringify({ json: null, meta: { values: ['undefined'], v: 1 } }))}`);
    expect(answer.status).toBe(200);
  });
});

describe('INTEG-2: an integration url is what one pattern says, and everything it matches parses', () => {
  it('the schema IntegrationUrl carries the server\'s pattern', () => {
    expect(document.components.schemas.IntegrationUrl.pattern).toBe(integrationUrlPattern);
    // THEME-2: the settings body's webSearchUrl pattern is the server's, and what it matches the server takes.
    expect(document.components.schemas.UpdateBoardSettingsRequest.properties.webSearchUrl.pattern).toBe(webSearchUrlPattern);
    fc.assert(fc.property(fc.stringMatching(new RegExp(webSearchUrlPattern, 'u'), { maxLength: 200 }), (url) => url.trim() === '' || webSearchUrlProblem(url) === null));
  });

  it('every string the pattern matches is a URL the WHATWG parser takes (after trimming)', () => {
    fc.assert(
      fc.property(fc.stringMatching(new RegExp(integrationUrlPattern, 'u'), { maxLength: 200 }), (url) => URL.canParse(url.trim()) && isIntegrationUrl(url)),
      { numRuns: 3000 },
    );
  });

  it('keeps the addresses integrations use', () => {
    for (const url of ['http://jellyfin.internal:8096', ' https://plex.example.com ', 'http://192.168.1.10:32400/web', 'http://[::1]:8080/', 'https://user:pw@host_1.lan/path?q=1#f', 'HTTP://HOST']) {
      expect({ url, ok: isIntegrationUrl(url) }).toEqual({ url, ok: true });
    }
    for (const url of ['ftp://files.example.com', 'jellyfin.internal', 'http://01.2.3.4', 'http://1.2.3', 'http://a..b']) {
      expect({ url, ok: isIntegrationUrl(url) }).toEqual({ url, ok: false });
    }
  });
});
