import type { BaseModel } from './BaseModel';

/**
 * Pieces of the set-based statements (jsonb_to_recordset: a batch of rows as ONE parameter) built from a model's
 * table and row schema, so that raw SQL names its table and columns from the models (MODEL-5). Every piece is built
 * once, when the statement text is made; each throws on a property the model's schema lacks.
 */
type ModelClass = typeof BaseModel;

/** `a, b_c`: the columns of the properties. */
export function columnList(model: ModelClass, properties: readonly string[], prefix = ''): string {
  return properties.map((property) => `${prefix}${model.column(property)}`).join(', ');
}

/** The SQL type a recordset column of the property is read as: from the row schema (text, int, boolean or jsonb). */
function recordType(model: ModelClass, property: string): string {
  const schema = model.jsonSchema.properties?.[property] as { type?: string | string[] } | undefined;
  const types = schema?.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('integer')) return 'int';
  if (types.includes('boolean')) return 'boolean';
  if (types.includes('string')) return 'text';
  return 'jsonb';
}

/** `jsonb_to_recordset(?::jsonb) AS v(id text, x_offset int, …)`: the rows parameter, keyed by column name. */
export function recordset(model: ModelClass, properties: readonly string[], alias = 'v'): string {
  return `jsonb_to_recordset(?::jsonb) AS ${alias}(${properties.map((property) => `${model.column(property)} ${recordType(model, property)}`).join(', ')})`;
}

/** `a = v.a, b_c = v.b_c`: sets the columns of the properties from the recordset (or `excluded`). */
export function assignments(model: ModelClass, properties: readonly string[], from = 'v'): string {
  return properties.map((property) => `${model.column(property)} = ${from}.${model.column(property)}`).join(', ');
}

/** `t.a = v.a AND t.b = v.b`: matches table rows (alias `table`) to recordset rows on the properties. */
export function matching(model: ModelClass, properties: readonly string[], table: string, from = 'v'): string {
  return properties.map((property) => `${table}.${model.column(property)} = ${from}.${model.column(property)}`).join(' AND ');
}
