import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import draft06MetaSchema from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import AjvDraft04Module from 'ajv-draft-04';
import { JSON_SCHEMA_OPTIONS } from './json-schema.js';
import { validate as validate202012 } from './json-schema-meta.generated.js';

// ajv-draft-04 is CommonJS: under NodeNext its default import is the module object's default.
const AjvDraft04 = AjvDraft04Module as unknown as typeof AjvDraft04Module.default;

/** The JSON Schema dialects a server's schema may declare with `$schema`, oldest first. */
export const DIALECT_NAMES = ['draft-04', 'draft-06', 'draft-07', '2019-09', '2020-12'] as const;

export type DialectName = (typeof DIALECT_NAMES)[number];

/** The dialect of a schema that declares none: JSON Schema 2020-12, MCP's default. */
export const DEFAULT_DIALECT: DialectName = '2020-12';

interface DialectSpec {
  /** The meta-schema URI as published; http or https, with or without the empty fragment `#`, names it. */
  uri: string;
  /** The keyword that gives a subschema a plain-name fragment (`#name`) in this dialect. */
  anchorKeyword: '$anchor' | '$id' | 'id';
  /** The meta-schema validator, made (and its meta-schema compiled) on first use. */
  metaValidator: () => (schema: unknown) => ErrorObject[] | undefined;
}

/** The same options as the checker's own validator: first error only, no code optimisation. */
const options = (): Options => ({ ...JSON_SCHEMA_OPTIONS, code: { ...JSON_SCHEMA_OPTIONS.code } });

/** A validator for one meta-schema, held by a fresh Ajv instance of the dialect's class. */
function ajvMetaValidator(ajv: Ajv, uri: string): (schema: unknown) => ErrorObject[] | undefined {
  const validate = ajv.getSchema(uri) as ValidateFunction;
  return (schema) => (validate(schema) ? undefined : (validate.errors ?? []));
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

const SPECS: Record<DialectName, DialectSpec> = {
  'draft-04': {
    uri: 'http://json-schema.org/draft-04/schema#',
    anchorKeyword: 'id',
    metaValidator: once(() => ajvMetaValidator(new AjvDraft04(options()) as unknown as Ajv, 'http://json-schema.org/draft-04/schema')),
  },
  'draft-06': {
    uri: 'http://json-schema.org/draft-06/schema#',
    anchorKeyword: '$id',
    metaValidator: once(() => {
      const ajv = new Ajv(options());
      ajv.addMetaSchema(draft06MetaSchema);
      return ajvMetaValidator(ajv, 'http://json-schema.org/draft-06/schema');
    }),
  },
  'draft-07': {
    uri: 'http://json-schema.org/draft-07/schema#',
    anchorKeyword: '$id',
    metaValidator: once(() => ajvMetaValidator(new Ajv(options()), 'http://json-schema.org/draft-07/schema')),
  },
  '2019-09': {
    uri: 'https://json-schema.org/draft/2019-09/schema',
    anchorKeyword: '$anchor',
    metaValidator: once(() => ajvMetaValidator(new Ajv2019(options()), 'https://json-schema.org/draft/2019-09/schema')),
  },
  // Precompiled (scripts/contract/meta-schema.ts): the common case compiles no meta-schema at all.
  '2020-12': {
    uri: 'https://json-schema.org/draft/2020-12/schema',
    anchorKeyword: '$anchor',
    metaValidator: () => (schema) => (validate202012(schema) ? undefined : ((validate202012.errors ?? []) as ErrorObject[])),
  },
};

/** `http://json-schema.org/draft-07/schema#` and its spellings → `json-schema.org/draft-07/schema`. */
function uriKey(uri: string): string {
  return uri.replace(/^https?:\/\//i, '').replace(/#$/, '');
}

const BY_URI = new Map(DIALECT_NAMES.map((name) => [uriKey(SPECS[name].uri), name]));

/** What a schema declares: a known dialect, or the `$schema` value no dialect answers to. */
export type DeclaredDialect = { known: true; name: DialectName } | { known: false; declared: unknown };

/** The dialect a schema declares with `$schema` (2020-12 when it declares none, or is a boolean schema). */
export function declaredDialect(schema: unknown): DeclaredDialect {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || !Object.hasOwn(schema, '$schema')) return { known: true, name: DEFAULT_DIALECT };
  const declared = (schema as { $schema: unknown }).$schema;
  const name = typeof declared === 'string' ? BY_URI.get(uriKey(declared)) : undefined;
  return name ? { known: true, name } : { known: false, declared };
}

/** The published meta-schema URI of a dialect. */
export function dialectUri(name: DialectName): string {
  return SPECS[name].uri;
}

/** The keyword that names a plain-name fragment (`#name`) in a dialect. */
export function anchorKeyword(name: DialectName): DialectSpec['anchorKeyword'] {
  return SPECS[name].anchorKeyword;
}

/** What the dialect's own meta-schema finds wrong with a schema (undefined when nothing). */
export function metaSchemaErrors(schema: unknown, name: DialectName): ErrorObject[] | undefined {
  return SPECS[name].metaValidator()(schema);
}
