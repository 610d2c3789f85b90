import fc from 'fast-check';

/** The subset of OpenAPI 3.0 schema keywords the document uses. */
export interface Schema {
  $ref?: string;
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minProperties?: number;
  maxProperties?: number;
  oneOf?: Schema[];
  nullable?: boolean;
}

type Document = { components: { schemas: Record<string, Schema> } };

/** A value of the wrong kind for almost any member: the invalid half of every generator. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ minLength: 3000, maxLength: 5000 }),
  fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.anything({ maxDepth: 1 }), { maxKeys: 3 }),
);

/**
 * fast-check generators built from the document's schemas: `valid` produces values the schema
 * accepts, `hostile` mostly valid values with one member broken (missing, extra, null, wrong type,
 * too long) and sometimes outright junk, so both the happy path and every validation branch run.
 */
export function schemaArbitraries(doc: Document) {
  const resolve = (schema: Schema): Schema => {
    if (!schema.$ref) return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    const found = doc.components.schemas[name];
    if (!found) throw new Error(`unknown $ref ${schema.$ref}`);
    return resolve(found);
  };

  function string(s: Schema): fc.Arbitrary<string> {
    if (s.enum) return fc.constantFrom(...(s.enum as string[]));
    if (s.format === 'date-time') return fc.date({ min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString());
    const min = s.minLength ?? 0;
    const max = s.maxLength ?? Math.max(min, 60);
    if (s.pattern) return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= min && v.length <= max);
    return fc.string({ minLength: min, maxLength: Math.min(max, min + 60) });
  }

  function valid(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
    const s = resolve(schema);
    if (s.oneOf) return fc.oneof(...s.oneOf.map((o) => valid(o, depth)));
    const base = ((): fc.Arbitrary<unknown> => {
      switch (s.type) {
        case 'string':
          return string(s);
        case 'integer':
          return s.enum ? fc.constantFrom(...s.enum) : fc.integer({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6 });
        case 'number':
          return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
        case 'boolean':
          return fc.boolean();
        case 'array':
          return fc.array(valid(s.items ?? {}, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, (s.minItems ?? 0) + 3) });
        case 'object': {
          const props = s.properties ?? {};
          const record = fc.record(
            Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valid(v, depth + 1)])),
            { requiredKeys: s.required ?? [] },
          );
          const extra = s.additionalProperties;
          if (typeof extra === 'object' && depth < 3) {
            const dict = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), valid(extra, depth + 1), {
              minKeys: s.minProperties ?? 0,
              maxKeys: Math.min(s.maxProperties ?? 3, 3),
            });
            return fc.tuple(record, dict).map(([a, b]) => ({ ...b, ...a }));
          }
          if (s.minProperties && !s.required?.length) {
            return record.filter((r) => Object.keys(r as object).length >= s.minProperties!);
          }
          return record;
        }
        default:
          return fc.anything({ maxDepth: 1 });
      }
    })();
    return s.nullable ? fc.option(base, { nil: null }) : base;
  }

  /** One member of an object broken in one way; anything else replaced by junk. */
  function hostile(schema: Schema): fc.Arbitrary<unknown> {
    const s = resolve(schema);
    if (s.type !== 'object' || !s.properties) return fc.oneof(valid(s), junk);
    const keys = Object.keys(s.properties);
    const broken = fc.tuple(valid(s), fc.constantFrom(...keys), junk, fc.nat(3)).map(([value, key, bad, how]) => {
      const out = { ...(value as Record<string, unknown>) };
      if (how === 0) delete out[key];
      else if (how === 1) out[key] = null;
      else if (how === 2) out[`${key}_extra`] = bad;
      else out[key] = bad;
      return out;
    });
    return fc.oneof({ arbitrary: valid(s), weight: 2 }, { arbitrary: broken, weight: 3 }, { arbitrary: junk, weight: 1 });
  }

  return { valid, hostile, resolve };
}
