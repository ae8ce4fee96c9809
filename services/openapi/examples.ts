import * as z from 'zod';

/**
 * Example values for the reference, generated from the zod schemas: each route's request body
 * (input side) and success response (output side). A schema may carry its own example
 * (`.meta({ examples: [...] })`), and a route may declare `examples` where a generated one
 * cannot satisfy the schema (rules across fields, checksums); test/unit/openapi-examples.test.ts
 * parses every example with its schema, so an example never contradicts the contract.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

const EXAMPLE_ID = '6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f';
const EARLY = '2026-03-02T08:00:00Z';
const LATE = '2026-03-02T16:30:00Z';

/** Times whose name says they close a range come after the ones that open it. */
const isLaterTime = (name: string): boolean => /(^to$|^end|ended|until|Until|^expires|updated|completed|finished|replaced)/.test(name);

function stringExample(schema: Schema, name: string): string {
  switch (schema.format) {
    case 'uuid':
      return EXAMPLE_ID;
    case 'date-time':
      return isLaterTime(name) ? LATE : EARLY;
    case 'date':
      return isLaterTime(name) ? '2026-03-31' : '2026-03-01';
    case 'email':
      return 'ada.lindqvist@acme.example';
    case 'uri':
    case 'url':
      return 'https://acme.example/';
    default:
      break;
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  let text = name ? name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() : 'text';
  if (text.length < min) text = text.padEnd(min, 'x');
  return text.slice(0, max);
}

function numberExample(schema: Schema, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (integer ? 1 : 0.5) : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - (integer ? 1 : 0.5) : undefined;
  let value = min !== undefined ? Math.max(min, 1) : 1;
  if (max !== undefined && value > max) value = max;
  return integer ? Math.ceil(value) : value;
}

/** An example of a JSON Schema (draft 2020-12, as z.toJSONSchema writes it). */
export function exampleOfJsonSchema(schema: Schema, root: Schema = schema, name = ''): Json {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0] as Json;
  if ('example' in schema) return schema.example as Json;
  if ('const' in schema) return schema.const as Json;
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  if ('default' in schema && schema.default !== undefined) return schema.default as Json;
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref.replace(/^#\/(\$defs|definitions)\//, '');
    const defs = (root.$defs ?? root.definitions ?? {}) as Record<string, Schema>;
    if (!defs[ref]) throw new Error(`Example of ${name}: unknown $ref ${schema.$ref}.`);
    return exampleOfJsonSchema(defs[ref], root, name);
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options) return exampleOfJsonSchema(options.find((o) => o.type !== 'null') ?? options[0], root, name);
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s) => exampleOfJsonSchema(s as Schema, root, name)));
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') ?? 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, exampleOfJsonSchema(s, root, key)]));
    }
    case 'array': {
      const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
      const items = (schema.items ?? {}) as Schema;
      return Array.from({ length: count }, () => exampleOfJsonSchema(items, root, name));
    }
    case 'string':
      return stringExample(schema, name);
    case 'integer':
      return numberExample(schema, true);
    case 'number':
      return numberExample(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

/** The example of a zod schema, on its input side (request bodies) or output side (responses). */
export function exampleOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Schema;
  return exampleOfJsonSchema(json);
}
