import { toInputSchema, type JsonSchema } from '../tools/schema.js';
import type { PromptDefinition } from './definition.js';

const schemas = new WeakMap<PromptDefinition, JsonSchema>();

/** The JSON Schema 2020-12 document of a prompt's arguments (one object per prompt, so validators compile once). */
export function promptArgsSchema(prompt: PromptDefinition): JsonSchema {
  let schema = schemas.get(prompt);
  if (!schema) {
    schema = toInputSchema({ properties: prompt.args, required: prompt.requiredArgs });
    schemas.set(prompt, schema);
  }
  return schema;
}
