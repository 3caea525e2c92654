import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { BUNDLED } from '../../src/conformance/package-root.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** A JSON Schema 2020-12 validator (with formats) for the schema in this file. */
export function schemaValidator(schemaFile: string) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')));
}

/** A validator for JSON reports against the documented schema, docs/report.schema.json. */
export function reportSchemaValidator() {
  return schemaValidator(BUNDLED.reportSchema);
}
