/**
 * Small builders for the JSON Schema 2020-12 documents our tools advertise. The documents are
 * sent to clients unchanged, so what these produce is exactly what `tools/list` shows.
 */

export type JsonSchema = Record<string, unknown>;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

interface Common {
  description?: string;
}

function withCommon<T extends JsonSchema>(schema: T, common: Common | undefined): T {
  return common?.description ? { ...schema, description: common.description } : schema;
}

export function string(options?: Common & { minLength?: number; maxLength?: number; pattern?: string; format?: string }): JsonSchema {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'string', ...rest }, { description });
}

export function integer(minimum: number, maximum: number, options?: Common & { default?: number }): JsonSchema {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'integer', minimum, maximum, ...rest }, { description });
}

export function boolean(options?: Common & { default?: boolean }): JsonSchema {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'boolean', ...rest }, { description });
}

export function oneOf(values: readonly string[], options?: Common & { default?: string }): JsonSchema {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'string', enum: [...values], ...rest }, { description });
}

export function constant(value: string): JsonSchema {
  return { type: 'string', const: value };
}

export function array(items: JsonSchema, options?: Common & { minItems?: number; maxItems?: number }): JsonSchema {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'array', items, ...rest }, { description });
}

/** A nested object; unknown keys are rejected so nothing outside the schema reaches a backend. */
export function object(properties: Record<string, JsonSchema>, required: readonly string[] = [], options?: Common): JsonSchema {
  const schema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = [...required];
  schema.additionalProperties = false;
  return withCommon(schema, options);
}

/** An object used as a string-to-string map (bucket info, metadata). */
export function stringMap(keySchema: JsonSchema, valueSchema: JsonSchema, options?: Common & { maxProperties?: number }): JsonSchema {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'object', propertyNames: keySchema, additionalProperties: valueSchema, ...rest }, { description });
}

export function nullable(schema: JsonSchema): JsonSchema {
  return { anyOf: [schema, { type: 'null' }] };
}

/** The arguments of one call, as the tool's input schema admitted them. */
export type ToolArgs = Record<string, unknown>;

/** The top-level `inputSchema` of a tool. */
export interface ToolInput {
  properties: Record<string, JsonSchema>;
  required?: readonly string[];
}

export function toInputSchema(input: ToolInput): JsonSchema {
  const schema: JsonSchema = { $schema: JSON_SCHEMA_DIALECT, type: 'object', properties: input.properties };
  if (input.required && input.required.length > 0) schema.required = [...input.required];
  schema.additionalProperties = false;
  return schema;
}
