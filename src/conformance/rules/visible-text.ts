import { CONNECTION_SPECS } from '../connect/connections.js';
import { joinPath } from '../diff/schema.js';
import type { LiveSurface } from '../snapshot/snapshot.js';

/**
 * Everything a server sends that a client may hand to its model, as strings with where they came
 * from: every string of every listed tool (as sent, every key kept), every property name, the
 * server instructions, and every prompt's name, title, description and arguments. Each string is
 * classified by the field it sits in, so a rule can pick the fields it judges.
 */
export const TEXT_FIELDS = ['name', 'title', 'description', 'instructions', 'enum', 'default', 'const', 'examples', 'other'] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

export interface VisibleText {
  text: string;
  field: TextField;
  /** The tool or prompt it belongs to; neither for the server instructions. */
  tool?: string | undefined;
  prompt?: string | undefined;
  /** JSON path inside the tool or prompt (`instructions` for the server's). */
  path: string;
  /** The connections that sent this same text at this same place. */
  scopes: string[];
}

const FIELD_OF_KEY: Readonly<Record<string, TextField>> = {
  name: 'name',
  title: 'title',
  description: 'description',
  enum: 'enum',
  default: 'default',
  const: 'const',
  examples: 'examples',
};

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Every string under `value`, and the keys of every `properties` map (property names), with the
 * field each belongs to: the nearest enclosing key that names one (an `enum` entry, anything
 * inside a `default`), else `other`.
 */
function* walk(value: unknown, path: string, field: TextField): Generator<{ text: string; field: TextField; path: string }> {
  if (typeof value === 'string') {
    yield { text: value, field, path };
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* walk(item, joinPath(path, index), field);
  } else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      const childPath = joinPath(path, key);
      if (key === 'properties' && isObject(child)) {
        for (const [name, schema] of Object.entries(child)) {
          const propertyPath = joinPath(childPath, name);
          yield { text: name, field: 'name', path: propertyPath };
          yield* walk(schema, propertyPath, 'other');
        }
        continue;
      }
      // Inside a value (an enum entry, a default, an example) everything is that value.
      const inherited = field === 'enum' || field === 'default' || field === 'const' || field === 'examples';
      yield* walk(child, childPath, inherited ? field : (FIELD_OF_KEY[key] ?? 'other'));
    }
  }
}

/** The surfaces whose text is judged: the 2.x judged connections (the 1.x witness reads the same server). */
function judged(surfaces: readonly LiveSurface[]): LiveSurface[] {
  return surfaces.filter((surface) => CONNECTION_SPECS[surface.connection].sdk === '2.x');
}

const collected = new WeakMap<readonly LiveSurface[], readonly VisibleText[]>();

/** Every visible text of the surfaces, collected once per surfaces array: several rules scan the same texts. */
export function visibleTexts(surfaces: readonly LiveSurface[]): readonly VisibleText[] {
  let texts = collected.get(surfaces);
  if (!texts) {
    texts = collectTexts(surfaces);
    collected.set(surfaces, texts);
  }
  return texts;
}

/** One entry per text and place; the same text at the same place from another connection only adds that connection. */
function collectTexts(surfaces: readonly LiveSurface[]): VisibleText[] {
  const byPlace = new Map<string, VisibleText>();
  const add = (text: Omit<VisibleText, 'scopes'>, scope: string) => {
    const key = JSON.stringify([text.tool ?? null, text.prompt ?? null, text.path, text.field, text.text]);
    const seen = byPlace.get(key);
    if (!seen) byPlace.set(key, { ...text, scopes: [scope] });
    else if (!seen.scopes.includes(scope)) seen.scopes.push(scope);
  };
  for (const surface of judged(surfaces)) {
    const scope = surface.connection;
    for (const tool of surface.listed) {
      const name = typeof tool.name === 'string' ? tool.name : String(tool.name);
      for (const item of walk(tool, '', 'other')) add({ ...item, tool: name }, scope);
    }
    const instructions = surface.observation.instructions;
    if (instructions !== null) add({ text: instructions, field: 'instructions', path: 'instructions' }, scope);
    for (const prompt of surface.prompts?.listed ?? []) {
      const name = typeof prompt.name === 'string' ? prompt.name : String(prompt.name);
      for (const item of walk(prompt, '', 'other')) add({ ...item, prompt: name }, scope);
    }
  }
  return [...byPlace.values()];
}

/** Where a text sits, for a reader: `tool x, inputSchema.properties.y.description`. */
export function placeOf(text: Pick<VisibleText, 'tool' | 'prompt' | 'path'>): string {
  if (text.tool !== undefined) return `tool ${text.tool}${text.path ? `, ${text.path}` : ''}`;
  if (text.prompt !== undefined) return `prompt ${text.prompt}${text.path ? `, ${text.path}` : ''}`;
  return 'the server instructions';
}
