import { portableSchema } from '../../src/mcp/portableSchema';

describe('portable tool schemas (MCP-6)', () => {
  it('MCP-6: a nullable type becomes anyOf with a null branch; annotations stay outside, constraints go to the typed branch', () => {
    expect(portableSchema({ type: ['string', 'null'], description: 'A title.', maxLength: 32, enum: ['a', 'b', null] })).toEqual({
      description: 'A title.',
      anyOf: [{ type: 'string', maxLength: 32, enum: ['a', 'b'] }, { type: 'null' }],
    });
  });

  it('MCP-6: nested schemas are converted; OpenAPI keywords and extensions are dropped; a one-type array is a plain type', () => {
    const converted = portableSchema({
      type: 'object',
      example: { a: 1 },
      'x-internal': true,
      discriminator: { propertyName: 'kind' },
      properties: { a: { type: ['integer'], minimum: 0 }, list: { type: 'array', items: { type: ['number', 'null'] } } },
      oneOf: [{ type: ['boolean', 'null'] }],
      additionalProperties: false,
    });
    expect(converted).toEqual({
      type: 'object',
      properties: { a: { type: 'integer', minimum: 0 }, list: { type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'null' }] } } },
      oneOf: [{ anyOf: [{ type: 'boolean' }, { type: 'null' }] }],
      additionalProperties: false,
    });
  });
});
