import type { Knex } from 'knex';
import { Model, type JSONSchema } from 'objection';

/**
 * The base of every model (MODEL-1): the column mapping in use is knex's (objection's `knexSnakeCaseMappers` on the
 * knex instance, src/db/database.ts), so models, stores and raw SQL all see camelCase properties for snake_case
 * columns; a model adds no mapper of its own (a model-level mapper would not map `where()` identifiers).
 *
 * - `jsonSchema` describes what a row may hold (MODEL-2). It is the row's shape, not a second input check: every
 *   write was validated against the contract before it reaches a store, so `$validate` does not run Ajv again.
 * - jsonb columns travel as they always did (the stores hand JSON text or values to the driver): `jsonAttributes`
 *   is empty, so objection never re-encodes them.
 * - relations name the related model by its file name in this folder (`modelClass: 'Layout'`, resolved on first use).
 * - `table(q)` is the model's knex: a plain knex builder on the model's table for the given database or
 *   transaction, for the hot paths and set-based statements whose rows are not turned into model instances.
 */
export class BaseModel extends Model {
  static override useLimitInFirst = true;
  /** Relations name their model by file (`modelClass: 'Layout'`), so the model files import no other model (no cycles). */
  static override modelPaths = [__dirname];
  static override jsonAttributes: string[] = [];

  /** The model's table as a knex builder on `q` (the database or a transaction). */
  static table(q: Knex): Knex.QueryBuilder {
    return q(this.tableName);
  }

  /** `table.property` for knex builders (the mapper turns it into `table.column`); throws on a property the schema lacks. */
  static col(property: string): string {
    return `${this.tableName}.${this.property(property)}`;
  }

  /** The snake_case column of one of the model's properties, for raw SQL; throws on a property the schema lacks. */
  static column(property: string): string {
    return this.property(property).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  }

  private static property(property: string): string {
    if (property !== '*' && !this.jsonSchema?.properties?.[property]) throw new Error(`${this.name} has no property ${property}`);
    return property;
  }

  override $validate(json?: object): object {
    return json ?? this;
  }
}

/** Row schema pieces (MODEL-2); bounds follow the contract where it describes the same value (openapi/components). */
export const col = {
  id: { type: 'string', minLength: 1 } as JSONSchema,
  text: { type: 'string' } as JSONSchema,
  nullableText: { type: ['string', 'null'] } as JSONSchema,
  int: { type: 'integer', minimum: -2147483648, maximum: 2147483647 } as JSONSchema,
  /** Grid offsets and sizes: the contract's 0..32767 bounds. */
  gridOffset: { type: 'integer', minimum: 0, maximum: 32767 } as JSONSchema,
  gridSize: { type: 'integer', minimum: 1, maximum: 32767 } as JSONSchema,
  nullableGridInt: { type: ['integer', 'null'], minimum: 0, maximum: 32767 } as JSONSchema,
  bool: { type: 'boolean' } as JSONSchema,
  /** timestamptz: a Date from the driver, an ISO string or the database's now() on the way in. */
  timestamp: {} as JSONSchema,
  nullableTimestamp: {} as JSONSchema,
  /** jsonb: any JSON value (written as JSON text or as a value the driver encodes). */
  json: {} as JSONSchema,
};

/** A row schema: every column a property, the required ones named (MODEL-2). */
export function rowSchema(required: string[], properties: Record<string, JSONSchema>): JSONSchema {
  return { type: 'object', required, additionalProperties: false, properties };
}
