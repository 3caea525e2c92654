import type { ListedTool } from '../../../contract/normalize.js';
import { joinPath } from '../../diff/schema.js';
import type { CheckKind, RawFinding } from '../types.js';
import { isObject, listedTools } from './traverse.js';

function inputProperties(tool: ListedTool): Record<string, unknown> {
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
  return isObject(schema.properties) ? schema.properties : {};
}

function annotationsOf(tool: ListedTool): Record<string, unknown> {
  return isObject(tool.annotations) ? tool.annotations : {};
}

/** An input property is offered exactly when an annotation has a value (e.g. `confirm` ⇔ destructive). */
const propertyIffAnnotation: CheckKind<{ property: string; annotation: string; value: unknown }> = {
  params: {
    type: 'object',
    properties: { property: { type: 'string' }, annotation: { type: 'string' }, value: {} },
    required: ['property', 'annotation', 'value'],
  },
  needs: ['live'],
  run(params, context) {
    const { property, annotation } = params;
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      const offered = property in inputProperties(tool);
      const annotated = annotationsOf(tool)[annotation] === params.value;
      if (offered === annotated) continue;
      out.push({
        tool: tool.name,
        path: offered ? joinPath('inputSchema.properties', property) : joinPath('annotations', annotation),
        scope,
        data: {
          property,
          annotation,
          value: JSON.stringify(params.value),
          situation: offered
            ? `offers "${property}" without ${annotation}: ${JSON.stringify(params.value)}`
            : `has ${annotation}: ${JSON.stringify(params.value)} but no "${property}" input`,
        },
      });
    }
    return out;
  },
};

/** Where an input property exists, it has the given `type` and/or is never required. */
const propertyShape: CheckKind<{ property: string; type?: string; notRequired?: true }> = {
  params: {
    type: 'object',
    properties: { property: { type: 'string' }, type: { type: 'string' }, notRequired: { const: true } },
    required: ['property'],
  },
  needs: ['live'],
  run(params, context) {
    const property = params.property;
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      const schema = inputProperties(tool)[property];
      if (schema === undefined) continue;
      const path = joinPath('inputSchema.properties', property);
      if (typeof params.type === 'string' && (!isObject(schema) || schema.type !== params.type)) {
        out.push({
          tool: tool.name,
          path: joinPath(path, 'type'),
          scope,
          data: { property, expected: params.type, actual: JSON.stringify(isObject(schema) ? schema.type : schema) ?? 'absent' },
        });
      }
      const required = isObject(tool.inputSchema) && Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required : [];
      if (params.notRequired && required.includes(property)) {
        out.push({ tool: tool.name, path: 'inputSchema.required', scope, data: { property } });
      }
    }
    return out;
  },
};

/** Every tool carries each annotation key, with a value of the given JSON type. */
const annotationsPresent: CheckKind<{ keys: string[]; type: 'boolean' | 'string' | 'number' }> = {
  params: {
    type: 'object',
    properties: { keys: { type: 'array', items: { type: 'string' }, minItems: 1 }, type: { enum: ['boolean', 'string', 'number'] } },
    required: ['keys', 'type'],
  },
  needs: ['live'],
  run(params, context) {
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      const annotations = annotationsOf(tool);
      for (const key of params.keys) {
        const value = annotations[key];
        if (typeof value !== params.type) {
          out.push({
            tool: tool.name,
            path: joinPath('annotations', key),
            scope,
            data: { key, type: params.type, actual: value === undefined ? 'absent' : JSON.stringify(value) },
          });
        }
      }
    }
    return out;
  },
};

/** The listed annotations may not all hold `value` at once (e.g. read-only and destructive). */
const annotationsExclusive: CheckKind<{ keys: string[]; value: unknown }> = {
  params: {
    type: 'object',
    properties: { keys: { type: 'array', items: { type: 'string' }, minItems: 2 }, value: {} },
    required: ['keys', 'value'],
  },
  needs: ['live'],
  run(params, context) {
    const keys = params.keys;
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      const annotations = annotationsOf(tool);
      if (keys.every((key) => annotations[key] === params.value)) {
        out.push({ tool: tool.name, path: 'annotations', scope, data: { keys: keys.join(' and '), value: JSON.stringify(params.value) } });
      }
    }
    return out;
  },
};

/** A top-level text field of every tool has a length within [min, max]. */
const textLength: CheckKind<{ field: 'description' | 'title'; min?: number; max?: number; skipMissing?: boolean }> = {
  params: {
    type: 'object',
    properties: {
      field: { enum: ['description', 'title'] },
      min: { type: 'integer', minimum: 0 },
      max: { type: 'integer', minimum: 1 },
      skipMissing: { type: 'boolean' },
    },
    required: ['field'],
  },
  needs: ['live'],
  run(params, context) {
    const field = params.field;
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      const value = tool[field];
      const text = typeof value === 'string' ? value.trim() : '';
      if (params.skipMissing && text === '') continue;
      const min = params.min ?? 0;
      const max = params.max ?? Infinity;
      if (text.length < min || text.length > max) {
        out.push({ tool: tool.name, path: field, scope, data: { length: text.length, min, max: Number.isFinite(max) ? max : 'none' } });
      }
    }
    return out;
  },
};

export const TOOL_SHAPE_KINDS: Record<string, CheckKind> = {
  'property-iff-annotation': propertyIffAnnotation,
  'property-shape': propertyShape,
  'annotations-present': annotationsPresent,
  'annotations-exclusive': annotationsExclusive,
  'text-length': textLength,
};
