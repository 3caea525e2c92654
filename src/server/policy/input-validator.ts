import { createRequire } from 'node:module';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import type { ValidateFunction } from 'ajv';

type AjvInstance = { compile(schema: object): ValidateFunction; errorsText(errors: ValidateFunction['errors']): string };

let ajv: AjvInstance | undefined;

/** Ajv (2020-12 dialect, with formats) is loaded on the first tool call, not at start-up. */
function loadAjv(): AjvInstance {
  if (!ajv) {
    const require = createRequire(import.meta.url);
    const Ajv2020 = require('ajv/dist/2020.js').default as new (options: object) => AjvInstance;
    const addFormats = require('ajv-formats').default as (instance: AjvInstance) => void;
    ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
  }
  return ajv;
}

/**
 * Validates tool arguments against the advertised schema, compiling each schema once on first
 * use. Listing tools therefore costs no schema compilation at all.
 */
const ajvInputValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let compiled: ValidateFunction | undefined;
    return (input: unknown) => {
      compiled ??= compiledFor(schema);
      if (compiled(input)) return { valid: true, data: input as T, errorMessage: undefined };
      return { valid: false, data: undefined, errorMessage: loadAjv().errorsText(compiled.errors) };
    };
  },
};

const cache = new WeakMap<object, ValidateFunction>();
function compiledFor(schema: JsonSchemaType): ValidateFunction {
  let fn = cache.get(schema as object);
  if (!fn) {
    fn = loadAjv().compile(schema as object);
    cache.set(schema as object, fn);
  }
  return fn;
}

/** Whether this runtime may compile code from strings; Cloudflare Workers may not, and Ajv compiles schemas to code. */
function canCompileCode(): boolean {
  try {
    new Function('');
    return true;
  } catch {
    return false;
  }
}

/** Ajv where it can run; elsewhere (Workers) the SDK's validator built on @cfworker/json-schema, which interprets the same schemas. */
export const lazyInputValidator: jsonSchemaValidator = canCompileCode()
  ? ajvInputValidator
  : new CfWorkerJsonSchemaValidator({ shortcircuit: false });
