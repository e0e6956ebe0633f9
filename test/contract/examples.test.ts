/**
 * The examples of the document are what Prism's mock answers and what the reference shows (ERR-5): every example of
 * every operation (parameters, request bodies, responses and their headers) and every schema's own `example` must be
 * valid against its schema, and the error examples must have the server's shape.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createAjv, dereference, Schema, SchemaValidators } from '../fuzz/openapi';
import { boardNotFound } from '../../src/boards/access';
import { noIntegrationAccess } from '../../src/boards/document/bindings';
import { sectionExists } from '../../src/boards/document/sections';
import { versionConflictMessage } from '../../src/boards/document/store';
import { tooManyStreams } from '../../src/boards/events/hub';
import { nameConflictMessage } from '../../src/boards/management/names';
import { loadConfig } from '../../src/config/config';
import { conflict } from '../../src/core/errors';
import { provisionedBoardConflict } from '../../src/db/errors';
import { bodyTooLarge, invalidJson } from '../../src/http/jsonBody';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';

const document = dereference(JSON.parse(readFileSync(path.resolve(__dirname, '../../generated/openapi.json'), 'utf8')));
const validators = new SchemaValidators(createAjv());

interface Example {
  where: string;
  schema: Schema;
  value: unknown;
}

/** The examples of a parameter, media type or header object (`example`, or each `examples.<name>.value`). */
function examplesOf(where: string, holder: { schema?: Schema; example?: unknown; examples?: Record<string, { value?: unknown }> }): Example[] {
  if (!holder.schema) return [];
  const found: Example[] = [];
  if ('example' in holder) found.push({ where, schema: holder.schema, value: holder.example });
  for (const [name, example] of Object.entries(holder.examples ?? {})) found.push({ where: `${where} (${name})`, schema: holder.schema, value: example.value });
  return found;
}

/** A schema's own `example` and those of the schemas inside it. */
function schemaExamples(where: string, schema: unknown, seen = new Set<unknown>()): Example[] {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return [];
  seen.add(schema);
  const node = schema as Schema;
  const found: Example[] = 'example' in node ? [{ where: `${where} (schema example)`, schema: node, value: node.example }] : [];
  for (const [name, property] of Object.entries<unknown>(node.properties ?? {})) found.push(...schemaExamples(`${where}.${name}`, property, seen));
  for (const keyword of ['items', 'additionalProperties', 'not']) found.push(...schemaExamples(`${where}[${keyword}]`, node[keyword], seen));
  for (const keyword of ['oneOf', 'anyOf', 'allOf', 'prefixItems']) {
    for (const [index, inner] of ((node[keyword] as unknown[]) ?? []).entries()) found.push(...schemaExamples(`${where}/${keyword}/${index}`, inner, seen));
  }
  return found;
}

function operationExamples(): Example[] {
  const found: Example[] = [];
  for (const [route, item] of Object.entries<any>(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = item[method];
      if (!op) continue;
      const name = `${method.toUpperCase()} ${route}`;
      for (const parameter of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        found.push(...examplesOf(`${name} parameter ${parameter.name}`, parameter), ...schemaExamples(`${name} parameter ${parameter.name}`, parameter.schema));
      }
      for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) {
        found.push(...examplesOf(`${name} request ${type}`, media), ...schemaExamples(`${name} request ${type}`, media.schema));
      }
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        for (const [type, media] of Object.entries<any>(response.content ?? {})) {
          found.push(...examplesOf(`${name} ${status} ${type}`, media), ...schemaExamples(`${name} ${status} ${type}`, media.schema));
        }
        for (const [header, declared] of Object.entries<any>(response.headers ?? {})) {
          found.push(...examplesOf(`${name} ${status} header ${header}`, declared), ...schemaExamples(`${name} ${status} header ${header}`, declared.schema));
        }
      }
    }
  }
  for (const [schemaName, schema] of Object.entries(document.components?.schemas ?? {})) found.push(...schemaExamples(`#/components/schemas/${schemaName}`, schema));
  return found;
}

const examples = operationExamples();

const server = useTestServer();
const missingId = 'zq0000000000000000000000';

interface ServedExample {
  message: string;
  code: string;
  data?: Record<string, unknown>;
}
interface Expected {
  status: number;
  message: string;
  code: string;
}
interface Probe {
  method: string;
  path: string;
  key?: string;
  body?: unknown;
}

describe('ERR-5: examples of the document', () => {
  it('finds the examples of operations and schemas', () => {
    expect(examples.length).toBeGreaterThan(300);
  });

  it('every example is valid against its schema', () => {
    const invalid = examples.filter((example) => !validators.valid(example.schema, example.value)).map((example) => `${example.where}: ${validators.errors(example.schema, example.value)}`);
    expect(invalid).toEqual([]);
  });

  /** What Prism serves for `Prefer: code=<status>` alone: the schema's own `example` first, then the media type's, then its first named example. */
  const servedByDefault = (route: string, method: string, status: string): ServedExample => {
    const media = document.paths[route][method].responses[status].content['application/json'];
    return media.schema?.example ?? media.example ?? Object.values<any>(media.examples ?? {})[0]?.value;
  };

  it('MOCK-1: no error schema has an example of its own beside the response\'s (Prism would serve it before them)', () => {
    const shadowing = new Set<string>();
    for (const [route, item] of Object.entries<any>(document.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(op?.responses ?? {})) {
          const media = response.content?.['application/json'];
          const ownExamples = media && ('example' in media || 'examples' in media);
          if (Number(status) >= 400 && ownExamples && media.schema?.example !== undefined) shadowing.add(`${method.toUpperCase()} ${route} ${status}`);
        }
      }
    }
    expect([...shadowing]).toEqual([]);
  });

  /**
   * The default served example of the main error statuses against the server's own definition of that answer: the
   * error the server throws (its factory or message constant, fed the example's own ids or file where the message
   * names one), or, where the message lives inside a store, the server's answer to a request that provokes it. Status
   * is the route's; message and code must be equal.
   */
  const versionConflict = () => conflict(versionConflictMessage);
  const provisioned = (example: ServedExample) => provisionedBoardConflict({ code: 'TSPRV', detail: String(example.data?.file), hint: String(example.data?.source) })!;
  const bindingRefused = (example: ServedExample) => noIntegrationAccess(example.data?.integrationIds as string[]);
  const config = loadConfig({});
  it.each<[string, string, string, (example: ServedExample) => Expected | Promise<Expected>]>([
    ['/api/boards/{id}', 'put', '409', versionConflict],
    ['/api/boards/{id}/restore', 'post', '409', versionConflict],
    ['/api/boards/{id}/plan', 'post', '409', versionConflict],
    ['/api/boards/{id}/items/{itemId}', 'patch', '409', provisioned],
    ['/api/boards/{id}/items/{itemId}', 'delete', '409', provisioned],
    ['/api/boards/{id}/sections/{sectionId}', 'patch', '409', provisioned],
    ['/api/boards/{id}/sections/{sectionId}', 'delete', '409', provisioned],
    ['/api/boards/{id}/sections', 'post', '409', sectionExists],
    ['/api/boards', 'post', '409', () => conflict(nameConflictMessage)],
    ['/api/boards/import', 'post', '409', () => conflict(nameConflictMessage)],
    ['/api/users', 'post', '409', () => answerTo(async () => ({ method: 'POST', path: '/api/users', body: { username: (await createActor(server)).username, password: 'password-123' } }))],
    ['/api/boards/{id}', 'get', '404', boardNotFound],
    ['/api/boards/{id}', 'delete', '404', boardNotFound],
    ['/api/boards/{id}/export', 'get', '404', boardNotFound],
    ['/api/boards/{id}/items/{itemId}', 'delete', '404', boardNotFound],
    ['/api/boards/{id}/events', 'get', '404', boardNotFound],
    ['/api/boards/import', 'post', '404', boardNotFound],
    ['/api/apps/{id}', 'get', '404', () => answerTo(() => ({ method: 'GET', path: `/api/apps/${missingId}` }))],
    ['/api/boards', 'post', '413', () => bodyTooLarge(config.bodyLimitBytes)],
    ['/api/boards/{id}', 'put', '403', bindingRefused],
    ['/api/boards/items', 'post', '403', bindingRefused],
    ['/api/boards/{id}/events', 'get', '429', () => tooManyStreams(config.eventStreamsPerCaller, config.eventHeartbeatMs / 1000)],
    ['/api/auth/logout', 'post', '400', invalidJson],
    [
      '/api/api-keys/{keyId}',
      'delete',
      '403',
      () =>
        answerTo(async () => {
          // A key narrowed to one scope revokes its owner's unscoped key.
          const owner = await createActor(server, { permissions: ['board-modify-all'] });
          const narrow = await server.call('POST', '/api/api-keys', { key: owner.key, body: { scopes: ['board-modify-all'] } });
          expect(narrow.status).toBe(201);
          return { method: 'DELETE', path: `/api/api-keys/${owner.key.split('.')[0]}`, key: narrow.body.apiKey };
        }),
    ],
  ])('MOCK-1, CONC-2, PROV-5, PUT-4, SECT-1: %s %s %s is served by default with the message and code the server sends', async (route, method, status, expected) => {
    const example = servedByDefault(route, method, status);
    const error = await expected(example);
    expect({ status: Number(status), message: example.message, code: example.code }).toEqual({ status: error.status, message: error.message, code: error.code });
  });

  /** The server's answer (message and code) to a request, which must have the status asked for. */
  async function answerTo(request: () => Promise<Probe> | Probe): Promise<Expected> {
    const { method, path: route, ...options } = await request();
    const answer = await server.call(method, route, options);
    return { message: answer.body?.message, code: answer.body?.code, status: answer.status };
  }
});

describe('ERR-5: error examples have the server shape', () => {
  it("the 400 example is the server's answer to a board name that breaks the pattern", async () => {
    const answer = await server.call('POST', '/api/boards', { body: { name: 'not a name!', columnCount: 12, isPublic: false } });
    expect(answer.status).toBe(400);
    const example = document.paths['/api/boards'].post.responses['400'].content['application/json'].example;
    expect(answer.body).toEqual(example);
  });
});
