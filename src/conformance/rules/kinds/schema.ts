import type { ErrorObject } from 'ajv/dist/2020.js';
import { deepEqual, joinPath } from '../../diff.js';
import { jsonSchemaValidator } from '../../json-schema.js';
import { validate as validateMetaSchema } from '../../json-schema-meta.generated.js';
import type { CheckKind, RawFinding } from '../types.js';
import safeRegex from 'safe-regex2';
import { MAX_NESTING, nestingDepth } from '../../reading-limits.js';
import { PART_SCHEMA, isObject, judgedSurfaces, listedTools, walkKeys, type ToolPart } from './traverse.js';

/** `/properties/a` → `properties.a` */
function pointerToPath(base: string, pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<string>((path, token) => joinPath(path, /^\d+$/.test(token) ? Number(token) : token), base);
}

/** The local references (`#/json/pointer` or `#anchor`) of one schema, resolved without rescanning it per reference. */
class LocalRefs {
  private anchors?: Map<string, unknown>;

  constructor(private readonly root: unknown) {}

  /** The target of a local reference, or undefined when it dangles. */
  resolve(ref: string): unknown {
    let fragment: string;
    try {
      fragment = decodeURIComponent(ref.slice(1));
    } catch {
      return undefined;
    }
    if (fragment === '') return this.root;
    if (!fragment.startsWith('/')) return this.anchorMap().get(fragment);
    let node: unknown = this.root;
    for (const token of fragment.slice(1).split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))) {
      if (node === null || typeof node !== 'object' || !Object.hasOwn(node, token)) return undefined;
      node = (node as Record<string, unknown>)[token];
    }
    return node;
  }

  /**
   * Whether following `ref` through schemas that are nothing but a `$ref` comes back to where it
   * started: such a schema has no meaning, and a validator resolving it never ends.
   */
  cycles(ref: string, maxSteps: number): boolean {
    const seen = new Set<unknown>();
    let target = this.resolve(ref);
    for (let step = 0; step < maxSteps && isObject(target); step++) {
      if (seen.has(target)) return true;
      seen.add(target);
      const next = Object.hasOwn(target, '$ref') ? target.$ref : undefined;
      if (typeof next !== 'string' || !next.startsWith('#') || Object.keys(target).some((key) => key !== '$ref' && key !== '$comment' && key !== 'description')) return false;
      target = this.resolve(next);
    }
    return false;
  }

  private anchorMap(): Map<string, unknown> {
    if (this.anchors) return this.anchors;
    const anchors = new Map<string, unknown>();
    const stack: unknown[] = [this.root];
    while (stack.length > 0) {
      const node = stack.pop();
      if (node === null || typeof node !== 'object') continue;
      if (isObject(node) && Object.hasOwn(node, '$anchor') && typeof node.$anchor === 'string' && !anchors.has(node.$anchor)) anchors.set(node.$anchor, node);
      for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push(child);
    }
    this.anchors = anchors;
    return anchors;
  }
}

function invalidRegex(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const META_SCHEMA_ID = 'https://json-schema.org/draft/2020-12/schema';

/**
 * What `Ajv.validateSchema` finds wrong with a schema (undefined when nothing). A schema object on
 * the 2020-12 meta-schema (no `$schema`, or that one) goes through the precompiled validator,
 * which saves compiling the meta-schema in every run; anything else through Ajv itself.
 */
export function metaSchemaErrors(schema: unknown): ErrorObject[] | undefined {
  const declared = isObject(schema) ? schema.$schema : null;
  if (declared === undefined || declared === META_SCHEMA_ID || declared === `${META_SCHEMA_ID}#`) {
    return validateMetaSchema(schema) ? undefined : ((validateMetaSchema.errors ?? []) as ErrorObject[]);
  }
  const ajv = jsonSchemaValidator();
  return ajv.validateSchema(schema as object) ? undefined : ((ajv.errors ?? []) as ErrorObject[]);
}

/**
 * Why a schema is not valid JSON Schema 2020-12, or undefined when it is: it must match the
 * 2020-12 meta-schema, every `pattern` (and `patternProperties` key) must be a valid Unicode
 * regex, and every local `$ref` must resolve. That is what compiling it with Ajv rejects, at a
 * fraction of the cost of generating a validator per tool.
 */
function schemaProblem(schema: unknown, part: string): { path: string; message: string } | undefined {
  const errors = metaSchemaErrors(schema);
  if (errors) {
    const error = errors[0];
    return { path: pointerToPath(part, error?.instancePath ?? ''), message: error?.message ?? 'does not match the 2020-12 meta-schema' };
  }
  let problem: { path: string; message: string } | undefined;
  const refs = new LocalRefs(schema);
  walkKeys(schema, part, (key, child, path) => {
    if (problem) return;
    if (key === '$ref' && typeof child === 'string' && child.startsWith('#') && refs.resolve(child) === undefined) {
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
        if (!Object.hasOwn(root, keyword)) out.push({ tool: tool.name, path: joinPath(part, keyword), scope, data: { expected: 'present', actual: 'absent' } });
      }
    }
    return out;
  },
};

/**
 * Structural limits that keep a schema cheap and self-contained for every client. A part too
 * deep to be read at all was replaced on arrival (see reading-limits.ts); it is reported here.
 */
const schemaLimits: CheckKind = {
  params: {
    type: 'object',
    properties: {
      parts: PART_SCHEMA,
      maxDepth: { type: 'integer', minimum: 1 },
      maxProperties: { type: 'integer', minimum: 1 },
      maxRefs: { type: 'integer', minimum: 0 },
      localRefsOnly: { type: 'boolean' },
      noRefCycles: { type: 'boolean' },
    },
    required: ['parts'],
  },
  needs: ['live'],
  run(params, context) {
    const parts = params.parts as ToolPart[];
    const maxDepth = typeof params.maxDepth === 'number' ? params.maxDepth : undefined;
    const out: RawFinding[] = [];
    for (const { surface, scope } of judgedSurfaces(context)) {
      for (const cut of surface.observation.bounded) {
        if (!(parts as string[]).includes(cut.part)) continue;
        out.push({ tool: cut.tool, path: cut.part, scope, key: 'depth', data: { limit: 'nesting depth', actual: cut.depth, max: maxDepth ?? MAX_NESTING } });
      }
    }
    for (const { tool, scope } of listedTools(context)) {
      for (const part of parts) {
        const schema = tool[part];
        if (schema === undefined) continue;
        const depth = nestingDepth(schema);
        if (maxDepth !== undefined && depth > maxDepth) {
          out.push({ tool: tool.name, path: part, scope, key: 'depth', data: { limit: 'nesting depth', actual: depth, max: maxDepth } });
        }
        const refs: { path: string; target: string }[] = [];
        walkKeys(schema, part, (key, child, path) => {
          if (key === '$ref' && typeof child === 'string') refs.push({ path, target: child });
          if (key === 'properties' && isObject(child) && typeof params.maxProperties === 'number') {
            const count = Object.keys(child).length;
            if (count > params.maxProperties) out.push({ tool: tool.name, path, scope, key: 'properties', data: { limit: 'property count', actual: count, max: params.maxProperties } });
          }
        });
        const tooManyRefs = typeof params.maxRefs === 'number' && refs.length > params.maxRefs;
        if (tooManyRefs) {
          out.push({ tool: tool.name, path: part, scope, key: 'refs', data: { limit: '$ref count', actual: refs.length, max: params.maxRefs } });
        }
        if (params.localRefsOnly) {
          for (const ref of refs.filter((candidate) => !candidate.target.startsWith('#'))) {
            out.push({ tool: tool.name, path: ref.path, scope, key: 'remote-ref', data: { limit: 'local $ref only', actual: ref.target, max: '#…' } });
          }
        }
        // Cycles are looked for among a bounded number of references only: past maxRefs the count is the finding.
        if (params.noRefCycles && !tooManyRefs) {
          const local = new LocalRefs(schema);
          for (const ref of refs.filter((candidate) => candidate.target.startsWith('#'))) {
            if (local.cycles(ref.target, refs.length + 1)) out.push({ tool: tool.name, path: ref.path, scope, key: 'ref-cycle', data: { limit: '$ref cycle', actual: `${ref.target} leads back to itself`, max: 'none' } });
          }
        }
      }
    }
    return out;
  },
};

/** A pattern too convoluted to analyse (the analyser overflows) counts as backtracking. */
function analysedAsBacktracking(pattern: string): boolean {
  try {
    return !safeRegex(pattern);
  } catch {
    return true;
  }
}

/** Patterns shaped for catastrophic backtracking (nested unbounded quantifiers): a client validating arguments can hang on one. */
const schemaPatterns: CheckKind = {
  params: { type: 'object', properties: { parts: PART_SCHEMA }, required: ['parts'] },
  needs: ['live'],
  run(params, context) {
    const out: RawFinding[] = [];
    const verdicts = new Map<string, boolean>();
    const backtracks = (pattern: string) => {
      if (!verdicts.has(pattern)) verdicts.set(pattern, analysedAsBacktracking(pattern));
      return verdicts.get(pattern)!;
    };
    for (const { tool, scope } of listedTools(context)) {
      for (const part of params.parts as ToolPart[]) {
        walkKeys(tool[part], part, (key, child, path) => {
          if (key === 'pattern' && typeof child === 'string' && backtracks(child)) out.push({ tool: tool.name, path, scope, data: { pattern: child } });
          if (key === 'patternProperties' && isObject(child)) {
            for (const pattern of Object.keys(child)) if (backtracks(pattern)) out.push({ tool: tool.name, path: joinPath(path, pattern), scope, data: { pattern } });
          }
        });
      }
    }
    return out;
  },
};

export const SCHEMA_KINDS: Record<string, CheckKind> = {
  'schema-compiles': schemaCompiles,
  'schema-root': schemaRoot,
  'schema-limits': schemaLimits,
  'schema-patterns': schemaPatterns,
};
