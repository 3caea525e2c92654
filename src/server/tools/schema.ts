/**
 * Small builders for the JSON Schema 2020-12 documents our tools advertise. The documents are
 * sent to clients unchanged, so what these produce is exactly what `tools/list` shows. Each
 * builder also carries, for the compiler only, the type of the values its schema admits, so a
 * tool's handler reads its arguments typed from the same builders that describe them.
 */

export type JsonSchema = Record<string, unknown>;

declare const admits: unique symbol;

/** A schema document whose type remembers the values it admits (`T`); nothing of `T` exists at run time. */
export type Schema<T> = JsonSchema & { readonly [admits]?: T };

/** The values a schema built here admits. */
export type Admitted<S> = S extends { readonly [admits]?: infer T } ? Exclude<T, undefined> : unknown;

export type Properties = Record<string, Schema<unknown>>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The object a properties map admits: `Required` keys always present, the others optional. */
export type ObjectOf<P extends Properties, Required extends keyof P> = Simplify<
  { [K in Required]: Admitted<P[K]> } & { [K in Exclude<keyof P, Required>]?: Admitted<P[K]> }
>;

const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

interface Common {
  description?: string;
}

function withCommon<T extends JsonSchema>(schema: T, description: string | undefined): T {
  return description ? { ...schema, description } : schema;
}

export function string(options?: Common & { minLength?: number; maxLength?: number; pattern?: string; format?: string }): Schema<string> {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'string', ...rest }, description);
}

export function integer(minimum: number, maximum: number, options?: Common & { default?: number }): Schema<number> {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'integer', minimum, maximum, ...rest }, description);
}

export function boolean(options?: Common & { default?: boolean }): Schema<boolean> {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'boolean', ...rest }, description);
}

export function oneOf<const V extends readonly string[]>(values: V, options?: Common & { default?: V[number] }): Schema<V[number]> {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'string', enum: [...values], ...rest }, description);
}

export function constant<const V extends string>(value: V): Schema<V> {
  return { type: 'string', const: value };
}

export function array<T>(items: Schema<T>, options?: Common & { minItems?: number; maxItems?: number }): Schema<T[]> {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'array', items, ...rest }, description);
}

/** A nested object; unknown keys are rejected so nothing outside the schema reaches a backend. */
export function object<P extends Properties, R extends keyof P & string = never>(
  properties: P,
  required: readonly R[] = [],
  options?: Common,
): Schema<ObjectOf<P, R>> {
  const schema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = [...required];
  schema.additionalProperties = false;
  return withCommon(schema, options?.description);
}

/** An object used as a string-to-string map (bucket info, metadata). */
export function stringMap<V>(
  keySchema: Schema<string>,
  valueSchema: Schema<V>,
  options?: Common & { maxProperties?: number },
): Schema<Record<string, V>> {
  const { description, ...rest } = options ?? {};
  return withCommon({ type: 'object', propertyNames: keySchema, additionalProperties: valueSchema, ...rest }, description);
}

export function nullable<T>(schema: Schema<T>): Schema<T | null> {
  return { anyOf: [schema, { type: 'null' }] };
}

/** The arguments of one call, as the tool's input schema admitted them. */
export type ToolArgs = Record<string, unknown>;

/** The top-level `inputSchema` of a tool; `Args` is what it admits. */
export interface ToolInput<Args extends ToolArgs = ToolArgs> {
  properties: Record<string, JsonSchema>;
  required?: readonly string[];
  readonly [admits]?: Args;
}

/** The arguments a tool input admits. */
export type ArgsOf<I extends ToolInput> = I extends ToolInput<infer Args> ? Args : never;

/** A tool's input: its properties and which of them every call must give. */
export function toolInput<P extends Properties, R extends keyof P & string = never>(
  properties: P,
  required: readonly R[] = [],
): ToolInput<ObjectOf<P, R>> {
  return required.length > 0 ? { properties, required } : { properties };
}

export function toInputSchema(input: ToolInput): JsonSchema {
  const schema: JsonSchema = { $schema: JSON_SCHEMA_DIALECT, type: 'object', properties: input.properties };
  if (input.required && input.required.length > 0) schema.required = [...input.required];
  schema.additionalProperties = false;
  return schema;
}

/** The named arguments that were given, without the absent ones (a backend request then omits them too). */
export function givenArgs<A extends object, K extends keyof A>(args: A, names: readonly K[]): Partial<Pick<A, K>> {
  const given: Partial<Pick<A, K>> = {};
  for (const name of names) if (args[name] !== undefined) given[name] = args[name];
  return given;
}
