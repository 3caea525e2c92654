import type { ErrorObject } from 'ajv/dist/2020.js';
import { deepEqual, joinPath } from '../../diff.js';
import { jsonSchemaValidator } from '../../json-schema.js';
import type { CheckKind, RawFinding } from '../types.js';
import { PART_SCHEMA, isObject, listedTools, walkKeys, type ToolPart } from './traverse.js';

/** `/properties/a` → `properties.a` */
function pointerToPath(base: string, pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<string>((path, token) => joinPath(path, /^\d+$/.test(token) ? Number(token) : token), base);
}

/** The target of a local reference (`#/json/pointer` or `#anchor`), or undefined when it dangles. */
function resolveLocalRef(root: unknown, ref: string): unknown {
  const fragment = decodeURIComponent(ref.slice(1));
  if (fragment === '') return root;
  if (!fragment.startsWith('/')) {
    let found: unknown;
    walkKeys(root, '', (key, child, path) => {
      if (key === '$anchor' && child === fragment) found = path;
    });
    return found;
  }
  let node: unknown = root;
  for (const token of fragment.slice(1).split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (node === null || typeof node !== 'object' || !(token in node)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

function invalidRegex(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Why a schema is not valid JSON Schema 2020-12, or undefined when it is: it must match the
 * 2020-12 meta-schema, every `pattern` (and `patternProperties` key) must be a valid Unicode
 * regex, and every local `$ref` must resolve. That is what compiling it with Ajv rejects, at a
 * fraction of the cost of generating a validator per tool.
 */
function schemaProblem(schema: unknown, part: string): { path: string; message: string } | undefined {
  const ajv = jsonSchemaValidator();
  if (!ajv.validateSchema(schema as object)) {
    const error = (ajv.errors ?? [])[0] as ErrorObject | undefined;
    return { path: pointerToPath(part, error?.instancePath ?? ''), message: error?.message ?? 'does not match the 2020-12 meta-schema' };
  }
  let problem: { path: string; message: string } | undefined;
  walkKeys(schema, part, (key, child, path) => {
    if (problem) return;
    if (key === '$ref' && typeof child === 'string' && child.startsWith('#') && resolveLocalRef(schema, child) === undefined) {
      problem = { path, message: `$ref "${child}" does not resolve inside the schema` };
    } else if (key === 'pattern' && typeof child === 'string' && invalidRegex(child)) {
      problem = { path, message: `pattern is not a valid Unicode regular expression: ${invalidRegex(child)}` };
    } else if (key === 'patternProperties' && isObject(child)) {
      const bad = Object.keys(child).find((candidate) => invalidRegex(candidate));
      if (bad !== undefined) problem = { path: joinPath(path, bad), message: `patternProperties key is not a valid Unicode regular expression: ${invalidRegex(bad)}` };
    }
  });
  return problem;
}

/** Every present schema part must validate against the 2020-12 meta-schema and be self-consistent. */
const schemaCompiles: CheckKind = {
  params: { type: 'object', properties: { parts: PART_SCHEMA }, required: ['parts'] },
  needs: ['live'],
  run(params, context) {
    const verdicts = new Map<string, ReturnType<typeof schemaProblem>>();
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      for (const part of params.parts as ToolPart[]) {
        const schema = tool[part];
        if (schema === undefined) continue;
        const key = `${part}:${JSON.stringify(schema)}`;
        if (!verdicts.has(key)) verdicts.set(key, schemaProblem(schema, part));
        const problem = verdicts.get(key);
        if (problem) out.push({ tool: tool.name, path: problem.path, scope, data: { problem: problem.message } });
      }
    }
    return out;
  },
};

/** The root of a schema part must carry `equals` keywords with exactly those values, and the `present` ones. */
const schemaRoot: CheckKind = {
  params: {
    type: 'object',
    properties: {
      part: { enum: ['inputSchema', 'outputSchema'] },
      equals: { type: 'object' },
      present: { type: 'array', items: { type: 'string' } },
    },
    required: ['part'],
  },
  needs: ['live'],
  run(params, context) {
    const part = params.part as ToolPart;
    const equals = (params.equals as Record<string, unknown> | undefined) ?? {};
    const present = (params.present as string[] | undefined) ?? [];
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      const schema = tool[part];
      if (schema === undefined && part === 'outputSchema') continue;
      const root = isObject(schema) ? schema : {};
      for (const [keyword, expected] of Object.entries(equals)) {
        if (!deepEqual(root[keyword], expected)) {
          out.push({ tool: tool.name, path: joinPath(part, keyword), scope, data: { expected: JSON.stringify(expected), actual: JSON.stringify(root[keyword]) ?? 'absent' } });
        }
      }
      for (const keyword of present) {
        if (!(keyword in root)) out.push({ tool: tool.name, path: joinPath(part, keyword), scope, data: { expected: 'present', actual: 'absent' } });
      }
    }
    return out;
  },
};

function nestingDepth(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(nestingDepth));
  if (isObject(value)) return 1 + Math.max(0, ...Object.values(value).map(nestingDepth));
  return 0;
}

/** Structural limits that keep a schema cheap and self-contained for every client. */
const schemaLimits: CheckKind = {
  params: {
    type: 'object',
    properties: {
      parts: PART_SCHEMA,
      maxDepth: { type: 'integer', minimum: 1 },
      maxRefs: { type: 'integer', minimum: 0 },
      localRefsOnly: { type: 'boolean' },
    },
    required: ['parts'],
  },
  needs: ['live'],
  run(params, context) {
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      for (const part of params.parts as ToolPart[]) {
        const schema = tool[part];
        if (schema === undefined) continue;
        const depth = nestingDepth(schema);
        if (typeof params.maxDepth === 'number' && depth > params.maxDepth) {
          out.push({ tool: tool.name, path: part, scope, key: 'depth', data: { limit: 'nesting depth', actual: depth, max: params.maxDepth } });
        }
        const refs: { path: string; target: string }[] = [];
        walkKeys(schema, part, (key, child, path) => {
          if (key === '$ref' && typeof child === 'string') refs.push({ path, target: child });
        });
        if (typeof params.maxRefs === 'number' && refs.length > params.maxRefs) {
          out.push({ tool: tool.name, path: part, scope, key: 'refs', data: { limit: '$ref count', actual: refs.length, max: params.maxRefs } });
        }
        if (params.localRefsOnly) {
          for (const ref of refs.filter((candidate) => !candidate.target.startsWith('#'))) {
            out.push({ tool: tool.name, path: ref.path, scope, key: 'remote-ref', data: { limit: 'local $ref only', actual: ref.target, max: '#…' } });
          }
        }
      }
    }
    return out;
  },
};

export const SCHEMA_KINDS: Record<string, CheckKind> = {
  'schema-compiles': schemaCompiles,
  'schema-root': schemaRoot,
  'schema-limits': schemaLimits,
};
