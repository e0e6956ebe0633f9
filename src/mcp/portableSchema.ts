/**
 * MCP-6: a tool's input schema in the subset of JSON Schema that every major MCP client and model provider accepts,
 * converted from the (dereferenced) OpenAPI schemas: no `type` arrays (a nullable field becomes `anyOf` with a
 * `{"type": "null"}` branch), no `$ref` (the document is dereferenced first), none of OpenAPI's own keywords
 * (`example`, `discriminator`, `x-…`), and no schema that constrains nothing. Pure: schema in, schema out.
 */
type Schema = Record<string, any>;

/** Keywords that describe a value rather than constrain it: they stay on the outer schema of a split union. */
const annotations = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
/** OpenAPI's keywords that are not JSON Schema, which clients reject or ignore. */
const openApiOnly = new Set(['example', 'discriminator', 'xml', 'externalDocs', 'nullable']);
const schemaMaps = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const schemaLists = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const schemaValues = ['items', 'additionalProperties', 'unevaluatedProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else'];

export function portableSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (openApiOnly.has(key) || key.startsWith('x-') || key === '$ref') continue;
    if (schemaMaps.includes(key) && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, portableSchema(sub)]));
    } else if (schemaLists.includes(key) && Array.isArray(value)) {
      out[key] = value.map(portableSchema);
    } else if (schemaValues.includes(key) && typeof value === 'object' && value !== null) {
      out[key] = portableSchema(value);
    } else {
      out[key] = value;
    }
  }
  return Array.isArray(out.type) ? splitTypeUnion(out) : out;
}

/** `{"type": ["string", "null"], …}` as `{"anyOf": [{"type": "string", …}, {"type": "null"}]}`, annotations outside. */
function splitTypeUnion(schema: Schema): Schema {
  const outer: Schema = {};
  const constraints: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type') continue;
    (annotations.has(key) ? outer : constraints)[key] = value;
  }
  const branches = (schema.type as string[]).map((type) => {
    if (type === 'null') return { type: 'null' };
    const branch: Schema = { type, ...constraints };
    if (Array.isArray(branch.enum)) branch.enum = branch.enum.filter((value: unknown) => value !== null);
    return branch;
  });
  return branches.length === 1 ? { ...outer, ...branches[0] } : { ...outer, anyOf: branches };
}
