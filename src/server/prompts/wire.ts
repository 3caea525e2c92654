import { toInputSchema, type JsonSchema } from '../tools/schema.js';
import type { PromptDefinition } from './definition.js';

/** The JSON Schema 2020-12 document of a prompt's arguments. */
export function promptArgsSchema(prompt: PromptDefinition): JsonSchema {
  return toInputSchema({ properties: prompt.args, required: prompt.requiredArgs });
}
