/**
 * JSON Schema (2020-12 / OpenAPI 3.1, dereferenced) -> fast-check arbitraries, plus schema-aware mutations that turn a
 * valid value into an invalid one. Positive values aim to satisfy the schema (the runner re-checks every request with
 * Ajv and classifies it, so an imperfect generator costs coverage, never a false alarm). They deliberately reach the
 * edges that break databases: int32/int64 bounds, NUL and astral code points where no pattern forbids them.
 */
import fc from 'fast-check';
import type { Schema } from './openapi';

/** A placeholder for "an id the fuzzer has seen", resolved against the live id pool when the request is sent. */
export class KnownId {
  constructor(
    readonly family: string,
    readonly pick: number,
    readonly fallback: unknown,
  ) {}
  toJSON(): unknown {
    return this.fallback;
  }
}

export interface ArbitraryOptions {
  /** Wraps string (or string-array) properties named `<thing>Id` / `<thing>Ids` so they reuse harvested ids. */
  idFamilyOf?: (propertyName: string) => string | null;
}

const maxDepth = 6;

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.additionalProperties !== undefined || schema.required) return ['object'];
  if (schema.items || schema.prefixItems) return ['array'];
  if (schema.pattern || schema.minLength !== undefined || schema.maxLength !== undefined || schema.format) return ['string'];
  if (schema.minimum !== undefined || schema.maximum !== undefined) return ['number'];
  return [];
}

/** allOf -> one schema (properties merged, required concatenated, the last bound wins: enough for API schemas). */
export function mergeAllOf(schema: Schema): Schema {
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, ...rest } = schema;
  let merged: Schema = {};
  for (const part of [...allOf.map(mergeAllOf), rest]) {
    merged = {
      ...merged,
      ...part,
      properties: { ...merged.properties, ...part.properties },
      required: [...new Set([...(merged.required ?? []), ...(part.required ?? [])])],
    };
  }
  if (Object.keys(merged.properties).length === 0) delete merged.properties;
  if (merged.required.length === 0) delete merged.required;
  return merged;
}

const anyJson = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -1000, max: 1000 }), fc.string({ maxLength: 8 }));

const textUnit = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_. '.split('')) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\u001f', '\u00e9', '\u{1F600}', '"', '\\', "'", '%', '/', '<') },
);

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength: number = schema.minLength ?? 0;
  const maxLength: number = Math.min(schema.maxLength ?? minLength + 24, minLength + 40);
  const fits = (s: string) => [...s].length >= (schema.minLength ?? 0) && (schema.maxLength === undefined || [...s].length <= schema.maxLength);
  switch (schema.format) {
    case 'date-time':
      return fc
        .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true })
        .chain((d) => fc.oneof(fc.constant(d), fc.constant(new Date(Date.now() + 86_400_000 + (d.getTime() % 1e9)))))
        .map((d) => d.toISOString());
    case 'date':
      return fc.date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress().filter(fits);
    case 'uuid':
      return fc.uuid();
    case 'uri':
    case 'url':
      return fc.webUrl().filter(fits);
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(patternRegExp(schema.pattern), { size: 'small' }).filter(fits);
  }
  return fc.string({ unit: textUnit, minLength, maxLength });
}

/** A schema pattern as Ajv reads it: in Unicode mode (`\p{Cf}` is a property there, a `p` without it). */
function patternRegExp(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return new RegExp(pattern);
  }
}

function integerArbitrary(schema: Schema): fc.Arbitrary<number> {
  let min: number = schema.minimum ?? Number.MIN_SAFE_INTEGER;
  let max: number = schema.maximum ?? Number.MAX_SAFE_INTEGER;
  if (typeof schema.exclusiveMinimum === 'number') min = Math.max(min, Math.floor(schema.exclusiveMinimum) + 1);
  if (typeof schema.exclusiveMaximum === 'number') max = Math.min(max, Math.ceil(schema.exclusiveMaximum) - 1);
  min = Math.ceil(min);
  max = Math.floor(max);
  const edges = [min, max, 0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 32767, 32768].filter((n) => n >= min && n <= max);
  const small = fc.integer({ min: Math.max(min, -100), max: Math.min(max, 100) });
  return fc.oneof(
    { weight: 4, arbitrary: min <= 100 && max >= -100 ? small : fc.integer({ min, max }) },
    { weight: 2, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(...edges) },
  );
}

function numberArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min = schema.minimum ?? schema.exclusiveMinimum ?? -1e12;
  const max = schema.maximum ?? schema.exclusiveMaximum ?? 1e12;
  return fc
    .double({ min, max, noNaN: true, noDefaultInfinity: true })
    .filter((n) => (schema.exclusiveMinimum === undefined || n > schema.exclusiveMinimum) && (schema.exclusiveMaximum === undefined || n < schema.exclusiveMaximum));
}

export function arbitraryFor(input: Schema | boolean, options: ArbitraryOptions = {}, depth = 0): fc.Arbitrary<unknown> {
  if (input === true || input === undefined) return anyJson;
  if (input === false) return fc.constant(undefined);
  const schema = mergeAllOf(input);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    const { oneOf: _o, anyOf: _a, ...base } = schema;
    return fc.oneof(...alternatives.map((alt: Schema) => arbitraryFor(mergeAllOf({ allOf: [base, alt] }), options, depth + 1)));
  }
  const types = typesOf(schema);
  if (types.length === 0) return anyJson;
  if (types.length > 1) return fc.oneof(...types.map((type) => arbitraryFor({ ...schema, type }, options, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArbitrary(schema);
    case 'number':
      return numberArbitrary(schema);
    case 'string':
      return stringArbitrary(schema);
    case 'array': {
      const minLength: number = schema.minItems ?? 0;
      const maxLength: number = depth >= maxDepth ? minLength : Math.min(schema.maxItems ?? minLength + 4, minLength + 4);
      const items = arbitraryFor(schema.items ?? true, options, depth + 1);
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const required = new Set<string>(schema.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, propertySchema] of Object.entries(properties)) {
        if (depth >= maxDepth && !required.has(name)) continue;
        model[name] = withKnownIds(name, propertySchema, arbitraryFor(propertySchema, options, depth + 1), options);
      }
      // Plain prototypes: null-prototype objects break Ajv's uniqueItems comparison (fast-deep-equal).
      return fc.record(model, { requiredKeys: [...required].filter((k) => k in model), noNullPrototype: true });
    }
    default:
      return anyJson;
  }
}

function withKnownIds(name: string, schema: Schema, base: fc.Arbitrary<unknown>, options: ArbitraryOptions): fc.Arbitrary<unknown> {
  const family = options.idFamilyOf?.(name);
  if (!family) return base;
  const types = typesOf(mergeAllOf(schema));
  if (types.includes('string')) {
    return fc.oneof({ weight: 3, arbitrary: knownId(family, base) }, { weight: 1, arbitrary: base });
  }
  if (types.includes('array')) {
    return base.chain((value) =>
      Array.isArray(value) ? fc.tuple(...value.map((v) => knownId(family, fc.constant(v)))).map((ids) => ids as unknown[]) : fc.constant(value),
    );
  }
  return base;
}

export function knownId(family: string, fallback: fc.Arbitrary<unknown>): fc.Arbitrary<KnownId> {
  return fc.tuple(fc.nat(), fallback).map(([pick, value]) => new KnownId(family, pick, value));
}

// ---------------------------------------------------------------------------------------------------------------
// Mutations: every way this schema offers to make a valid value invalid. Each mutation returns a new value.

export type Mutation = { description: string; apply: (value: unknown) => unknown };

const wrongTypeSamples: Array<[string, unknown]> = [
  ['integer', 12345],
  ['string', 'fuzz'],
  ['boolean', true],
  ['null', null],
  ['array', []],
  ['object', {}],
  ['number', 1.5],
];

function acceptsType(types: string[], sample: string, value: unknown): boolean {
  if (types.length === 0) return true;
  if (types.includes(sample)) return true;
  if (sample === 'integer' && types.includes('number')) return true;
  if (sample === 'number' && types.includes('integer') && Number.isInteger(value)) return true;
  return false;
}

/**
 * The alternative of a oneOf/anyOf that `value` was generated from: the first whose `const`/`enum` properties
 * (a discriminator such as `kind`) all match the value and whose required properties it all has (alternatives that
 * share their constants, such as the JSON-RPC messages, differ by what they require); else the first that matches
 * the constants.
 */
function matchingAlternative(schema: Schema, value: unknown): Schema | null {
  const alternatives: Schema[] | undefined = schema.oneOf ?? schema.anyOf;
  if (!Array.isArray(alternatives)) return null;
  const { oneOf: _o, anyOf: _a, ...base } = schema;
  const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  let firstFit: Schema | null = null;
  for (const alternative of alternatives) {
    const merged = mergeAllOf({ allOf: [base, alternative] });
    if (record === null) {
      if (typesOf(merged).length === 0) return merged;
      continue;
    }
    const discriminators = Object.entries<Schema>(merged.properties ?? {}).filter(([, p]) => 'const' in p || Array.isArray(p.enum));
    if (!discriminators.every(([key, p]) => ('const' in p ? record[key] === p.const : p.enum.includes(record[key])))) continue;
    if (((merged.required ?? []) as string[]).every((key) => key in record)) return merged;
    firstFit ??= merged;
  }
  return firstFit;
}

/** Mutations at `value` (matching `schema`) and, recursively, inside it. */
export function mutationsFor(input: Schema | boolean, value: unknown, depth = 0): Mutation[] {
  if (typeof input !== 'object' || input === null || depth > maxDepth) return [];
  const schema = matchingAlternative(mergeAllOf(input), value) ?? mergeAllOf(input);
  const out: Mutation[] = [];
  const types = typesOf(schema);
  for (const [type, sample] of wrongTypeSamples) {
    if (!acceptsType(types, type, sample) && types.length > 0) {
      out.push({ description: `${type} instead of ${types.join('|')}`, apply: () => sample });
      break;
    }
  }
  if (Array.isArray(schema.enum)) out.push({ description: 'value outside the enum', apply: () => '__not_in_enum__' });
  if (typeof value === 'string') {
    if (schema.maxLength !== undefined) out.push({ description: `longer than ${schema.maxLength}`, apply: () => 'a'.repeat(schema.maxLength + 1) });
    if (schema.minLength > 0) out.push({ description: `shorter than ${schema.minLength}`, apply: () => '' });
    if (schema.pattern) {
      const re = patternRegExp(schema.pattern);
      for (const suffix of ['\u0000', ' ', '!', '\n']) {
        if (!re.test(value + suffix)) {
          out.push({ description: `breaks pattern ${schema.pattern}`, apply: () => value + suffix });
          break;
        }
      }
    }
    if (schema.format === 'date-time') out.push({ description: 'not a date-time', apply: () => '2024-13-45T99:00:00Z' });
    if (schema.format === 'email') out.push({ description: 'not an email', apply: () => 'not-an-email' });
  }
  if (typeof value === 'number') {
    if (schema.maximum !== undefined) out.push({ description: `above maximum ${schema.maximum}`, apply: () => schema.maximum + 1 });
    if (schema.minimum !== undefined) out.push({ description: `below minimum ${schema.minimum}`, apply: () => schema.minimum - 1 });
    if (types.includes('integer') && !types.includes('number')) out.push({ description: 'fraction for an integer', apply: () => (value as number) + 0.5 });
  }
  if (Array.isArray(value)) {
    // Past a large bound (a board file's 10,000 items) the copy is megabytes that Prism's validating proxy took minutes
    // to read and answer (a 6.5 MB body, a 13.9 MB answer): those bounds are the limit tests' (LIMIT-*, INPUT-6).
    if (schema.maxItems !== undefined && schema.maxItems <= 1000) {
      out.push({ description: `more than ${schema.maxItems} items`, apply: () => Array.from({ length: schema.maxItems + 1 }, (_, i) => value[i % Math.max(1, value.length)] ?? i) });
    }
    if (schema.minItems > 0) out.push({ description: `fewer than ${schema.minItems} items`, apply: () => [] });
    if (schema.uniqueItems && value.length > 0) out.push({ description: 'duplicate items', apply: () => [...value, value[0]] });
    value.forEach((item, index) => {
      for (const inner of mutationsFor(schema.items ?? true, item, depth + 1)) {
        out.push({
          description: `[${index}]: ${inner.description}`,
          apply: () => value.map((v, i) => (i === index ? inner.apply(v) : v)),
        });
      }
    });
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      out.push({
        description: `missing required ${key}`,
        apply: () => Object.fromEntries(Object.entries(record).filter(([k]) => k !== key)),
      });
    }
    if (schema.additionalProperties === false) {
      out.push({ description: 'unknown property', apply: () => ({ ...record, fuzzUnknownProperty: 1 }) });
    }
    for (const [key, child] of Object.entries(record)) {
      const childSchema = schema.properties?.[key];
      if (!childSchema) continue;
      for (const inner of mutationsFor(childSchema, child, depth + 1)) {
        out.push({ description: `${key}: ${inner.description}`, apply: () => ({ ...record, [key]: inner.apply(child) }) });
      }
    }
  }
  return out;
}
