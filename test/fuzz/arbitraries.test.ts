import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { arbitraryFor, mutationsFor } from './arbitraries';
import { createAjv, dereference, listOperations, SchemaValidators } from './openapi';
import { idFamilyOfPathParameter, idFamilyOfProperty, IdPool, orderOperations } from './runner';

const document = JSON.parse(readFileSync(path.resolve(__dirname, '../../generated/openapi.json'), 'utf8'));
const operations = listOperations(document);
const validators = new SchemaValidators(createAjv());
const bodies = operations.filter((op) => op.body).map((op) => [op.operationId, op.body!.schema] as const);

describe('JSON Schema -> fast-check converter', () => {
  it.each(bodies)('generates valid %s bodies (>= 90%%) and mutations that break them', (_id, schema) => {
    const samples = fc.sample(arbitraryFor(schema), { numRuns: 100, seed: 1 });
    const valid = samples.filter((s) => validators.valid(schema, s));
    expect(valid.length).toBeGreaterThanOrEqual(90);
    // Each distinct mutation (its description names the place and the change) is checked on at most three samples:
    // the same mutation of the hundredth sample finds nothing the first three did not, and validating every copy took
    // minutes for the board bodies (58,160 mutations of 3,270 kinds for a board set).
    const seen = new Map<string, number>();
    const firstCopies = (description: string) => {
      const count = seen.get(description) ?? 0;
      seen.set(description, count + 1);
      return count < 3;
    };
    const mutated = valid.flatMap((value) =>
      mutationsFor(schema, value)
        .filter((m) => firstCopies(m.description))
        .map((m) => [m.description, m.apply(value)] as const),
    );
    expect(mutated.length).toBeGreaterThan(0);
    const stillValid = mutated.filter(([, v]) => validators.valid(schema, v));
    // A mutation may be absorbed by another alternative of the schema; almost all must break it.
    expect(stillValid.length).toBeLessThanOrEqual(mutated.length * 0.05);
  });

  it('covers bounds, nullable types, enums, patterns and NUL', () => {
    const schema = {
      type: 'object',
      required: ['n', 'c', 'e', 'free'],
      additionalProperties: false,
      properties: {
        n: { type: 'integer', minimum: 0, maximum: 2147483647 },
        c: { type: ['string', 'null'], pattern: '^#[0-9a-f]{6}$' },
        e: { enum: ['a', 'b'] },
        free: { type: 'string', maxLength: 5 },
      },
    };
    const samples = fc.sample(arbitraryFor(schema), { numRuns: 2000, seed: 3 }) as any[];
    expect(samples.every((s) => validators.valid(schema, s))).toBe(true);
    expect(samples.some((s) => s.n === 2147483647)).toBe(true);
    expect(samples.some((s) => s.c === null)).toBe(true);
    expect(samples.some((s) => typeof s.c === 'string')).toBe(true);
    expect(samples.some((s) => s.free.includes('\u0000'))).toBe(true);
  });

  it('dereferences local $refs and cuts cycles', () => {
    const doc = { a: { $ref: '#/b' }, b: { type: 'object', properties: { self: { $ref: '#/b' } } } };
    const out = dereference(doc) as any;
    expect(out.a.type).toBe('object');
    expect(out.a.properties.self).toEqual({});
  });
});

describe('id reuse', () => {
  it('maps property and path parameter names to id families', () => {
    expect(idFamilyOfProperty('userId')).toBe('user');
    expect(idFamilyOfProperty('integrationIds')).toBe('integration');
    expect(idFamilyOfProperty('name')).toBeNull();
    expect(idFamilyOfPathParameter('/api/boards/{id}', 'id')).toBe('board');
    expect(idFamilyOfPathParameter('/api/boards/{id}/items/{itemId}', 'itemId')).toBe('item');
    expect(idFamilyOfPathParameter('/api/api-keys/{keyId}', 'keyId')).toBe('key');
  });

  it('harvests ids from responses and never hands a protected id to a write', () => {
    const pool = new IdPool();
    pool.harvest({ id: 'k1', apiKey: 'k1.secret', userId: 'u1' }, 'apikey');
    pool.harvest([{ id: 'b1', sections: [{ id: 's1' }], items: [{ id: 'i1', integrationIds: ['n1'] }] }], 'board');
    expect(pool.candidates('key', false)).toEqual(['k1']);
    expect(pool.candidates('board', false)).toEqual(['b1']);
    expect(pool.candidates('section', false)).toEqual(['s1']);
    expect(pool.candidates('item', false)).toEqual(['i1']);
    expect(pool.candidates('integration', false)).toEqual(['n1']);
    pool.protectedIds.add('u1');
    expect(pool.candidates('user', false)).toEqual(['u1']);
    expect(pool.candidates('user', true)).toEqual([]);
  });

  it('orders creations before their dependants and deletions last', () => {
    const order = orderOperations(operations).map((op) => op.operationId);
    expect(order.indexOf('createUser')).toBeLessThan(order.indexOf('createApiKey'));
    expect(order.indexOf('createGroup')).toBeLessThan(order.indexOf('addGroupMember'));
    expect(order.indexOf('removeGroupMember')).toBeLessThan(order.indexOf('deleteGroup'));
    // Deletions last, known by their method (DELETE /api/boards/labels/{label}/owner is releaseBoardLabel).
    expect(orderOperations(operations).slice(-4).map((op) => op.method)).toEqual(['delete', 'delete', 'delete', 'delete']);
  });
});
