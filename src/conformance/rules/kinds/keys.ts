import type { CheckKind, RawFinding } from '../types.js';
import { PART_SCHEMA, compileRegex, listedTools, walkKeys, walkProperties, type ToolPart } from './traverse.js';

/** No object key at any depth of the given tool parts may be one of `keys`. */
const forbiddenKeys: CheckKind<{ keys: string[]; caseInsensitive?: boolean; parts: ToolPart[] }> = {
  params: {
    type: 'object',
    properties: {
      keys: { type: 'array', items: { type: 'string' }, minItems: 1 },
      caseInsensitive: { type: 'boolean' },
      parts: PART_SCHEMA,
    },
    required: ['keys', 'parts'],
  },
  needs: ['live'],
  run(params, context) {
    const fold = (key: string) => (params.caseInsensitive ? key.toLowerCase() : key);
    const forbidden = new Set(params.keys.map(fold));
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      for (const part of params.parts) {
        walkKeys(tool[part], part, (key, _child, path) => {
          if (forbidden.has(fold(key))) out.push({ tool: tool.name, path, scope, data: { key } });
        });
      }
    }
    return out;
  },
};

/**
 * Declared property names (in `properties` maps of the given parts) must not match any of
 * `patterns`, unless listed in `allow`. `scope` picks top-level input fields or nested ones.
 */
const propertyNamePattern: CheckKind<{
  patterns: string[];
  flags?: string;
  allow?: string[];
  scope: 'top-level' | 'nested';
  parts: ToolPart[];
}> = {
  params: {
    type: 'object',
    properties: {
      patterns: { type: 'array', items: { type: 'string' }, minItems: 1 },
      flags: { type: 'string' },
      allow: { type: 'array', items: { type: 'string' } },
      scope: { enum: ['top-level', 'nested'] },
      parts: PART_SCHEMA,
    },
    required: ['patterns', 'scope', 'parts'],
  },
  needs: ['live'],
  run(params, context) {
    const patterns = params.patterns.map((pattern) => compileRegex(pattern, params.flags));
    const allow = new Set(params.allow ?? []);
    const nested = params.scope === 'nested';
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      for (const part of params.parts) {
        walkProperties(tool[part], part, ({ name, path, depth }) => {
          if (nested !== depth > 0 || allow.has(name)) return;
          const match = patterns.find((pattern) => pattern.test(name));
          if (match) out.push({ tool: tool.name, path, scope, data: { field: name, pattern: match.source } });
        });
      }
    }
    return out;
  },
};

export const KEY_KINDS: Record<string, CheckKind> = {
  'forbidden-keys': forbiddenKeys,
  'property-name-pattern': propertyNamePattern,
};
