import type { ListedTool } from '../../../contract/normalize.js';
import { joinPath } from '../../diff/schema.js';
import type { LiveSurface } from '../../snapshot/snapshot.js';
import type { RuleContext } from '../types.js';

/**
 * The surfaces static rules judge: the 2.x eras (the 1.x witness is compared, not judged). Eras
 * that list identical tools (same profile hash) are judged once, on behalf of all of them.
 */
export function judgedSurfaces(context: RuleContext): { surface: LiveSurface; scope: string[] }[] {
  const byHash = new Map<string, { surface: LiveSurface; scope: string[] }>();
  for (const surface of context.surfaces) {
    if (surface.connection === 'witness') continue;
    const seen = byHash.get(surface.hash);
    if (seen) seen.scope.push(surface.connection);
    else byHash.set(surface.hash, { surface, scope: [surface.connection] });
  }
  return [...byHash.values()];
}

/** Each listed tool of each judged surface, with the eras it stands for. */
export function* listedTools(context: RuleContext): Generator<{ tool: ListedTool; scope: string[] }> {
  for (const { surface, scope } of judgedSurfaces(context)) {
    for (const tool of surface.listed) yield { tool, scope };
  }
}

export const TOOL_PARTS = ['description', 'inputSchema', 'outputSchema', 'annotations', '_meta'] as const;
export type ToolPart = (typeof TOOL_PARTS)[number];

export const PART_SCHEMA = { type: 'array', items: { enum: [...TOOL_PARTS] }, minItems: 1 } as const;

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Visit every object key at any depth, with its JSON path. */
export function walkKeys(value: unknown, path: string, visit: (key: string, child: unknown, childPath: string) => void): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) walkKeys(item, joinPath(path, index), visit);
  } else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      const childPath = joinPath(path, key);
      visit(key, child, childPath);
      walkKeys(child, childPath, visit);
    }
  }
}

export interface PropertyVisit {
  name: string;
  schema: unknown;
  path: string;
  /** 0 for a top-level input property, 1 for a property of a property's object, ... */
  depth: number;
}

/** Every named property declared by a schema (`properties` maps), through all subschemas. */
export function walkProperties(schema: unknown, path: string, visit: (property: PropertyVisit) => void, depth = 0): void {
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) walkProperties(item, joinPath(path, index), visit, depth);
    return;
  }
  if (!isObject(schema)) return;
  for (const [key, child] of Object.entries(schema)) {
    const childPath = joinPath(path, key);
    if (key === 'properties' && isObject(child)) {
      for (const [name, propertySchema] of Object.entries(child)) {
        const propertyPath = joinPath(childPath, name);
        visit({ name, schema: propertySchema, path: propertyPath, depth });
        walkProperties(propertySchema, propertyPath, visit, depth + 1);
      }
    } else {
      walkProperties(child, childPath, visit, depth);
    }
  }
}

export function compileRegex(pattern: unknown, flags?: unknown): RegExp {
  return new RegExp(String(pattern), typeof flags === 'string' ? flags : '');
}
