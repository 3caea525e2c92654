import { deepEqual, joinPath } from '../../diff/schema.js';
import { DIALECT_NAMES, anchorKeyword, declaredDialect, metaSchemaErrors, type DialectName } from '../../connect/schema-dialects.js';
import type { CheckKind, RawFinding } from '../types.js';
import safeRegex from 'safe-regex2';
import {
  MAX_LISTING_MEMBERS,
  MAX_NESTING,
  MAX_PART_MEMBERS,
  nestingDepth,
  partTooDeep,
  partTooLarge,
} from '../../connect/reading-limits.js';
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

  /** `anchor` is the keyword that names a `#name` fragment in the schema's dialect. */
  constructor(
    private readonly root: unknown,
    private readonly anchor: ReturnType<typeof anchorKeyword> = '$anchor',
  ) {}

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
    for (const token of fragment
      .slice(1)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))) {
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
      if (
        typeof next !== 'string' ||
        !next.startsWith('#') ||
        Object.keys(target).some((key) => key !== '$ref' && key !== '$comment' && key !== 'description')
      )
        return false;
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
      const name = isObject(node) && Object.hasOwn(node, this.anchor) ? node[this.anchor] : undefined;
      // Before 2019-09 a plain-name fragment is an id of the form `#name`.
      const fragment =
        typeof name === 'string' ? (this.anchor === '$anchor' ? name : name.startsWith('#') ? name.slice(1) : undefined) : undefined;
      if (fragment !== undefined && !anchors.has(fragment)) anchors.set(fragment, node);
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

/** Why a schema is not valid, and the dialect it was judged in (`unknown` when none could be). */
interface SchemaProblem {
  path: string;
  message: string;
  dialect: string;
}

function unknownDialect(declared: unknown, part: string): SchemaProblem {
  return {
    path: joinPath(part, '$schema'),
    dialect: 'unknown',
    message: `$schema ${JSON.stringify(declared)} names no JSON Schema dialect a client knows (${DIALECT_NAMES.join(', ')})`,
  };
}

/**
 * Why a schema is not valid in the JSON Schema dialect it declares (2020-12 when none), or
 * undefined when it is: the dialect must be one the checker knows, the schema must match that
 * dialect's meta-schema, every `pattern` (and `patternProperties` key) must be a valid Unicode
 * regex, and every local `$ref` must resolve. That is what compiling it with Ajv rejects, at a
 * fraction of the cost of generating a validator per tool.
 */
function schemaProblem(schema: unknown, part: string): SchemaProblem | undefined {
  const declared = declaredDialect(schema);
  if (!declared.known) return unknownDialect(declared.declared, part);
  const dialect = declared.name;
  const errors = metaSchemaErrors(schema, dialect);
  if (errors) {
    const error = errors[0];
    return {
      path: pointerToPath(part, error?.instancePath ?? ''),
      dialect,
      message: error?.message ?? `does not match the ${dialect} meta-schema`,
    };
  }
  let problem: SchemaProblem | undefined;
  const refs = new LocalRefs(schema, anchorKeyword(dialect));
  walkKeys(schema, part, (key, child, path) => {
    if (problem) return;
    if (key === '$ref' && typeof child === 'string' && child.startsWith('#') && refs.resolve(child) === undefined) {
      problem = { path, dialect, message: `$ref "${child}" does not resolve inside the schema` };
    } else if (key === 'pattern' && typeof child === 'string' && invalidRegex(child)) {
      problem = { path, dialect, message: `pattern is not a valid Unicode regular expression: ${invalidRegex(child)}` };
    } else if (key === 'patternProperties' && isObject(child)) {
      const bad = Object.keys(child).find((candidate) => invalidRegex(candidate));
      if (bad !== undefined)
        problem = {
          path: joinPath(path, bad),
          dialect,
          message: `patternProperties key is not a valid Unicode regular expression: ${invalidRegex(bad)}`,
        };
    }
  });
  return problem;
}

/** Every present schema part must be valid in the dialect it declares, and self-consistent. */
const schemaCompiles: CheckKind<{ parts: ToolPart[] }> = {
  params: { type: 'object', properties: { parts: PART_SCHEMA }, required: ['parts'] },
  needs: ['live'],
  run(params, context) {
    const verdicts = new Map<string, SchemaProblem | undefined>();
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      for (const part of params.parts) {
        const schema = tool[part];
        if (schema === undefined) continue;
        const key = `${part}:${JSON.stringify(schema)}`;
        if (!verdicts.has(key)) verdicts.set(key, schemaProblem(schema, part));
        const problem = verdicts.get(key);
        if (problem) out.push({ tool: tool.name, path: problem.path, scope, data: { problem: problem.message, dialect: problem.dialect } });
      }
    }
    return out;
  },
};

/** Every present schema part must be in one of `dialects` (a schema without `$schema` is in the default one). */
const schemaDialect: CheckKind<{ parts: ToolPart[]; dialects: DialectName[] }> = {
  params: {
    type: 'object',
    properties: { parts: PART_SCHEMA, dialects: { type: 'array', items: { enum: [...DIALECT_NAMES] }, minItems: 1 } },
    required: ['parts', 'dialects'],
  },
  needs: ['live'],
  run(params, context) {
    const allowed = params.dialects;
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      for (const part of params.parts) {
        const schema = tool[part];
        if (schema === undefined) continue;
        const declared = declaredDialect(schema);
        const problem = !declared.known
          ? unknownDialect(declared.declared, part)
          : allowed.includes(declared.name)
            ? undefined
            : { path: joinPath(part, '$schema'), dialect: declared.name, message: `it declares ${declared.name}` };
        if (problem)
          out.push({
            tool: tool.name,
            path: problem.path,
            scope,
            data: { problem: problem.message, dialect: problem.dialect, allowed: allowed.join(', ') },
          });
      }
    }
    return out;
  },
};

/** The root of a schema part must carry `equals` keywords with exactly those values, and the `present` ones. */
const schemaRoot: CheckKind<{ part: ToolPart; equals?: Record<string, unknown>; present?: string[] }> = {
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
    const part = params.part;
    const equals = params.equals ?? {};
    const present = params.present ?? [];
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      const schema = tool[part];
      if (schema === undefined && part === 'outputSchema') continue;
      const root = isObject(schema) ? schema : {};
      for (const [keyword, expected] of Object.entries(equals)) {
        if (!deepEqual(root[keyword], expected)) {
          out.push({
            tool: tool.name,
            path: joinPath(part, keyword),
            scope,
            data: { expected: JSON.stringify(expected), actual: JSON.stringify(root[keyword]) ?? 'absent' },
          });
        }
      }
      for (const keyword of present) {
        if (!Object.hasOwn(root, keyword))
          out.push({ tool: tool.name, path: joinPath(part, keyword), scope, data: { expected: 'present', actual: 'absent' } });
      }
    }
    return out;
  },
};

/**
 * Structural limits that keep a schema cheap and self-contained for every client. A part too
 * deep to be read at all was replaced on arrival (see reading-limits.ts); it is reported here.
 */
const schemaLimits: CheckKind<{
  parts: ToolPart[];
  maxDepth?: number;
  maxProperties?: number;
  maxRefs?: number;
  localRefsOnly?: boolean;
  noRefCycles?: boolean;
}> = {
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
    const parts = params.parts;
    const maxDepth = params.maxDepth;
    const out: RawFinding[] = [];
    for (const { surface, scope } of judgedSurfaces(context)) {
      for (const cut of surface.observation.bounded) {
        if (!(parts as string[]).includes(cut.part)) continue;
        if (partTooDeep(cut.depth))
          out.push({
            tool: cut.tool,
            path: cut.part,
            scope,
            key: 'depth',
            data: { limit: 'nesting depth', actual: cut.depth, max: maxDepth ?? MAX_NESTING },
          });
        if (partTooLarge(cut.members))
          out.push({
            tool: cut.tool,
            path: cut.part,
            scope,
            key: 'size',
            data: { limit: 'size (keys and array items)', actual: cut.members, max: MAX_PART_MEMBERS },
          });
        else if (cut.listingMembers !== undefined)
          out.push({
            tool: cut.tool,
            path: cut.part,
            scope,
            key: 'listing-size',
            data: { limit: 'size of all tools together (keys and array items)', actual: cut.listingMembers, max: MAX_LISTING_MEMBERS },
          });
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
            if (count > params.maxProperties)
              out.push({
                tool: tool.name,
                path,
                scope,
                key: 'properties',
                data: { limit: 'property count', actual: count, max: params.maxProperties },
              });
          }
        });
        const tooManyRefs = typeof params.maxRefs === 'number' && refs.length > params.maxRefs;
        if (tooManyRefs) {
          out.push({
            tool: tool.name,
            path: part,
            scope,
            key: 'refs',
            data: { limit: '$ref count', actual: refs.length, max: params.maxRefs },
          });
        }
        if (params.localRefsOnly) {
          for (const ref of refs.filter((candidate) => !candidate.target.startsWith('#'))) {
            out.push({
              tool: tool.name,
              path: ref.path,
              scope,
              key: 'remote-ref',
              data: { limit: 'local $ref only', actual: ref.target, max: '#…' },
            });
          }
        }
        // Cycles are looked for among a bounded number of references only: past maxRefs the count is the finding.
        if (params.noRefCycles && !tooManyRefs) {
          const local = new LocalRefs(schema);
          for (const ref of refs.filter((candidate) => candidate.target.startsWith('#'))) {
            if (local.cycles(ref.target, refs.length + 1))
              out.push({
                tool: tool.name,
                path: ref.path,
                scope,
                key: 'ref-cycle',
                data: { limit: '$ref cycle', actual: `${ref.target} leads back to itself`, max: 'none' },
              });
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

/**
 * Patterns shaped for catastrophic backtracking (nested unbounded quantifiers): a client validating
 * arguments can hang on one. One finding per pattern and schema part, at its first place, with how
 * many other places in that part use it: a schema repeating one pattern thousands of times is one
 * problem, not thousands.
 */
const schemaPatterns: CheckKind<{ parts: ToolPart[] }> = {
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
      for (const part of params.parts) {
        const places = new Map<string, string[]>();
        const found = (pattern: string, path: string) => {
          if (!backtracks(pattern)) return;
          if (!places.has(pattern)) places.set(pattern, []);
          places.get(pattern)!.push(path);
        };
        walkKeys(tool[part], part, (key, child, path) => {
          if (key === 'pattern' && typeof child === 'string') found(child, path);
          if (key === 'patternProperties' && isObject(child))
            for (const pattern of Object.keys(child)) found(pattern, joinPath(path, pattern));
        });
        for (const [pattern, [path, ...others]] of places) {
          out.push({
            tool: tool.name,
            path,
            scope,
            data: {
              pattern,
              elsewhere:
                others.length === 0
                  ? ''
                  : ` (and ${others.length.toLocaleString('en-US')} more ${others.length === 1 ? 'place' : 'places'} in ${part})`,
            },
          });
        }
      }
    }
    return out;
  },
};

export const SCHEMA_KINDS: Record<string, CheckKind> = {
  'schema-compiles': schemaCompiles,
  'schema-dialect': schemaDialect,
  'schema-root': schemaRoot,
  'schema-limits': schemaLimits,
  'schema-patterns': schemaPatterns,
};
