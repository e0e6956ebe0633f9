/**
 * The examples of the document are what Prism's mock answers and what the reference shows (ERR-5): every example of
 * every operation (parameters, request bodies, responses and their headers) and every schema's own `example` must be
 * valid against its schema, and the error examples must have the server's shape.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createAjv, dereference, Schema, SchemaValidators } from '../fuzz/openapi';
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

describe('ERR-5: examples of the document', () => {
  it('finds the examples of operations and schemas', () => {
    expect(examples.length).toBeGreaterThan(300);
  });

  it('every example is valid against its schema', () => {
    const invalid = examples.filter((example) => !validators.valid(example.schema, example.value)).map((example) => `${example.where}: ${validators.errors(example.schema, example.value)}`);
    expect(invalid).toEqual([]);
  });

  /** What Prism serves for `Prefer: code=<status>` alone: the schema's own `example` first, then the media type's, then its first named example. */
  const servedByDefault = (route: string, method: string, status: string) => {
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

  it.each([
    ['/api/boards/{id}', 'put', '409', 'This board was modified by another request. Reload the latest board and retry.'],
    ['/api/boards/{id}/restore', 'post', '409', 'This board was modified by another request. Reload the latest board and retry.'],
    ['/api/boards/{id}/plan', 'post', '409', 'This board was modified by another request. Reload the latest board and retry.'],
    ['/api/boards/{id}/items/{itemId}', 'delete', '409', 'This board was modified by another request. Reload the latest board and retry.'],
    ['/api/boards/{id}/sections/{sectionId}', 'delete', '409', 'This board was modified by another request. Reload the latest board and retry.'],
    ['/api/boards/{id}/sections', 'post', '409', 'Section already exists on this board'],
    ['/api/boards', 'post', '409', 'Board with similar name already exists'],
    ['/api/users', 'post', '409', 'Username already taken'],
    ['/api/boards/{id}', 'get', '404', 'Board not found'],
    ['/api/boards/{id}', 'delete', '404', 'Board not found'],
    ['/api/boards/{id}/export', 'get', '404', 'Board not found'],
    ['/api/boards/{id}/items/{itemId}', 'delete', '404', 'Board not found'],
    ['/api/boards/{id}/events', 'get', '404', 'Board not found'],
    ['/api/apps/{id}', 'get', '404', 'App not found'],
    ['/api/boards', 'post', '413', 'Request body larger than 10485760 bytes'],
    ['/api/boards/{id}', 'put', '403', 'No access to integrations: k3l9m1n5b7v2c8x4z0q6w2e4'],
    ['/api/boards/items', 'post', '403', 'No access to integrations: k3l9m1n5b7v2c8x4z0q6w2e4'],
    ['/api/boards/{id}/events', 'get', '429', 'Too many open event streams: at most 16 per caller'],
    ['/api/boards/import', 'post', '404', 'Board not found'],
    ['/api/boards/import', 'post', '409', 'Board with similar name already exists'],
    ['/api/auth/logout', 'post', '400', 'Failed to parse request body: invalid JSON'],
    ['/api/api-keys/{keyId}', 'delete', '403', 'Permission denied: an API key cannot revoke a key that holds more than itself'],
  ])('MOCK-1, CONC-2, PUT-4, SECT-1: %s %s %s is served by default with the message the server sends', (route, method, status, message) => {
    expect(servedByDefault(route, method, status).message).toBe(message);
  });
});

describe('ERR-5: error examples have the server shape', () => {
  const server = useTestServer();

  it("the 400 example is the server's answer to a board name that breaks the pattern", async () => {
    const answer = await server.call('POST', '/api/boards', { body: { name: 'not a name!', columnCount: 12, isPublic: false } });
    expect(answer.status).toBe(400);
    const example = document.paths['/api/boards'].post.responses['400'].content['application/json'].example;
    expect(answer.body).toEqual(example);
  });
});
