import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import draft06MetaSchema from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import type { jsonSchemaValidator as SdkSchemaValidator } from '@modelcontextprotocol/client';
import { JSON_SCHEMA_OPTIONS } from './json-schema.js';
import { validate as validate202012 } from './json-schema-meta.generated.js';

// ajv-draft-04 and ajv-formats are CommonJS: under NodeNext their default import is the module object's default.
const AjvDraft04 = AjvDraft04Module as unknown as typeof AjvDraft04Module.default;
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

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
  /** A fresh Ajv instance of the dialect's class, holding its meta-schema. */
  ajv: (options: Options) => Ajv;
}

/** The same options as the checker's own validator: first error only, no code optimisation. */
const options = (): Options => ({ ...JSON_SCHEMA_OPTIONS, code: { ...JSON_SCHEMA_OPTIONS.code } });

const SPECS: Record<DialectName, DialectSpec> = {
  'draft-04': {
    uri: 'http://json-schema.org/draft-04/schema#',
    anchorKeyword: 'id',
    ajv: (given) => new AjvDraft04(given) as unknown as Ajv,
  },
  'draft-06': {
    uri: 'http://json-schema.org/draft-06/schema#',
    anchorKeyword: '$id',
    ajv: (given) => {
      const ajv = new Ajv(given);
      ajv.addMetaSchema(draft06MetaSchema);
      return ajv;
    },
  },
  'draft-07': { uri: 'http://json-schema.org/draft-07/schema#', anchorKeyword: '$id', ajv: (given) => new Ajv(given) },
  '2019-09': {
    uri: 'https://json-schema.org/draft/2019-09/schema',
    anchorKeyword: '$anchor',
    ajv: (given) => new Ajv2019(given) as unknown as Ajv,
  },
  '2020-12': {
    uri: 'https://json-schema.org/draft/2020-12/schema',
    anchorKeyword: '$anchor',
    ajv: (given) => new Ajv2020(given) as unknown as Ajv,
  },
};

function perDialect<T>(make: (name: DialectName) => T): (name: DialectName) => T {
  const made = new Map<DialectName, T>();
  return (name) => {
    if (!made.has(name)) made.set(name, make(name));
    return made.get(name)!;
  };
}

/**
 * The meta-schema validator of each dialect, made on first use. 2020-12's is precompiled
 * (scripts/contract/meta-schema.ts): the common case compiles no meta-schema at all.
 */
const metaValidator = perDialect((name): ((schema: unknown) => ErrorObject[] | undefined) => {
  if (name === '2020-12') return (schema) => (validate202012(schema) ? undefined : ((validate202012.errors ?? []) as ErrorObject[]));
  const validate = SPECS[name].ajv(options()).getSchema(SPECS[name].uri.replace(/#$/, '')) as ValidateFunction;
  return (schema) => (validate(schema) ? undefined : (validate.errors ?? []));
});

/** The Ajv instance that compiles servers' schemas of each dialect, with ajv-formats as clients have it. */
const compiler = perDialect((name) => {
  const ajv = SPECS[name].ajv(options());
  addFormats(ajv);
  return ajv;
});

/** `http://json-schema.org/draft-07/schema#` and its spellings → `json-schema.org/draft-07/schema`. */
function uriKey(uri: string): string {
  return uri.replace(/^https?:\/\//i, '').replace(/#$/, '');
}

const BY_URI = new Map(DIALECT_NAMES.map((name) => [uriKey(SPECS[name].uri), name]));

/** What a schema declares: a known dialect, or the `$schema` value no dialect answers to. */
export type DeclaredDialect = { known: true; name: DialectName } | { known: false; declared: unknown };

/** The dialect a schema declares with `$schema` (2020-12 when it declares none, or is a boolean schema). */
export function declaredDialect(schema: unknown): DeclaredDialect {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || !Object.hasOwn(schema, '$schema'))
    return { known: true, name: DEFAULT_DIALECT };
  const declared = (schema as { $schema: unknown }).$schema;
  const name = typeof declared === 'string' ? BY_URI.get(uriKey(declared)) : undefined;
  return name ? { known: true, name } : { known: false, declared };
}

/** The keyword that names a plain-name fragment (`#name`) in a dialect. */
export function anchorKeyword(name: DialectName): DialectSpec['anchorKeyword'] {
  return SPECS[name].anchorKeyword;
}

/** What the dialect's own meta-schema finds wrong with a schema (undefined when nothing). */
export function metaSchemaErrors(schema: unknown, name: DialectName): ErrorObject[] | undefined {
  return metaValidator(name)(schema);
}

/** A server's schema compiled in the dialect it declares; undefined when it cannot be (the schema rules say why). */
function compileInDialect(schema: unknown): ValidateFunction | undefined {
  const declared = declaredDialect(schema);
  if (!declared.known) return undefined;
  try {
    return compiler(declared.name).compile(schema as object);
  } catch {
    return undefined;
  }
}

/**
 * An output-schema validator for the SDK clients (the 1.x client compiles every output schema as
 * it lists tools): each schema is compiled in its own dialect. One that cannot be compiled checks
 * nothing instead of failing the listing or the call: schema/valid-in-dialect reports it.
 */
export function dialectOutputValidator(): SdkSchemaValidator {
  return {
    getValidator<T>(schema: unknown) {
      const validate = compileInDialect(schema);
      return (input: unknown) => {
        if (!validate || validate(input)) return { valid: true, data: input as T, errorMessage: undefined };
        const error = validate.errors?.[0];
        return {
          valid: false,
          data: undefined,
          errorMessage: `${error?.instancePath || '(root)'} ${error?.message ?? 'does not match the output schema'}`,
        };
      };
    },
  };
}
