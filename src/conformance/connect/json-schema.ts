import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its default import is the module object's default.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

let shared: Ajv2020 | undefined;

/**
 * It reports the first error only and skips code optimisation: every schema it sees is compiled
 * once, mostly to prove that it compiles. The precompiled meta-schema validator is generated with
 * the same options (scripts/contract/meta-schema.ts).
 */
export const JSON_SCHEMA_OPTIONS = {
  strict: false,
  allErrors: false,
  logger: false,
  addUsedSchema: false,
  code: { optimize: false },
} as const satisfies Options;

/**
 * One JSON Schema 2020-12 validator (with ajv-formats) for the whole process, so the 2020-12
 * meta-schema is compiled once.
 */
export function jsonSchemaValidator(): Ajv2020 {
  if (!shared) {
    shared = new Ajv2020({ ...JSON_SCHEMA_OPTIONS, code: { ...JSON_SCHEMA_OPTIONS.code } });
    addFormats(shared);
  }
  return shared;
}
