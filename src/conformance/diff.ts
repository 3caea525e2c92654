import type { ModernBlock } from '../contract/fixture.js';
import { stable, type NormalizedTool } from '../contract/normalize.js';

/**
 * Every change the differ can name. Direction matters: for an input schema, anything that
 * rejects a call that used to be accepted is a tightening (breaking for clients), the reverse a
 * loosening. Each kind maps to exactly one rule in rules/diff.json (a test holds that).
 */
export const TOOL_CHANGE_KINDS = [
  'tool-removed',
  'tool-renamed',
  'tool-added',
  'required-added',
  'required-removed',
  'property-removed',
  'property-added',
  'type-narrowed',
  'type-widened',
  'enum-narrowed',
  'enum-widened',
  'bounds-tightened',
  'bounds-loosened',
  'additional-properties-closed',
  'additional-properties-opened',
  'description-changed',
  'default-changed',
  'annotation-toward-danger',
  'annotation-toward-caution',
  'output-schema-changed',
  'meta-changed',
  'schema-changed',
  'modern-block-changed',
  'instructions-changed',
] as const;

/**
 * Changes of a prompt. What `prompts/list` shows (names, title, description, argument names,
 * descriptions and required flags) is compared live and offline; the argument constraints and
 * the required tools and capabilities live only in the fixtures, so only `diff` sees them.
 */
export const PROMPT_CHANGE_KINDS = [
  'prompt-removed',
  'prompt-added',
  'prompt-argument-removed',
  'prompt-argument-added',
  'prompt-argument-required',
  'prompt-argument-optional',
  'prompt-argument-narrowed',
  'prompt-argument-widened',
  'prompt-argument-meta-changed',
  'prompt-text-changed',
  'prompt-requirement-added',
  'prompt-requirement-removed',
] as const;

export const CHANGE_KINDS = [...TOOL_CHANGE_KINDS, ...PROMPT_CHANGE_KINDS] as const;
export type ToolChangeKind = (typeof TOOL_CHANGE_KINDS)[number];
export type PromptChangeKind = (typeof PROMPT_CHANGE_KINDS)[number];
export type ChangeKind = ToolChangeKind | PromptChangeKind;

/** The kinds the direction-aware schema comparison (`diffSchema`) names. */
export type SchemaChangeKind = Exclude<ToolChangeKind, 'tool-removed' | 'tool-renamed' | 'tool-added' | 'annotation-toward-danger' | 'annotation-toward-caution' | 'output-schema-changed' | 'modern-block-changed' | 'instructions-changed'>;

export interface Change {
  kind: ChangeKind;
  /** The tool the change belongs to; absent for prompt changes and fixture-level changes (the modern block). */
  tool?: string;
  /** The prompt the change belongs to (prompt changes only). */
  prompt?: string;
  /** Where inside the tool, prompt or fixture, e.g. `inputSchema.properties.bucketId.type`; '' for the whole item. */
  path: string;
  before?: unknown;
  after?: unknown;
}

type Schema = Record<string, unknown>;

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains'];
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains'];
/** Keywords whose presence restricts values and whose change cannot be ordered: added or changed = tighter. */
const RESTRICTING = ['pattern', 'format', 'multipleOf'];
/** Keywords holding one subschema. */
const SUBSCHEMA = ['items', 'contains', 'propertyNames', 'additionalItems', 'not', 'unevaluatedItems', 'unevaluatedProperties'];
/** Keywords holding a list of alternatives. */
const ALTERNATIVES = ['anyOf', 'oneOf'];
/** Model-visible prose. */
const PROSE = ['description', 'title', 'examples', '$comment'];

/**
 * MCP tool annotation hints, their protocol defaults, and the value that lets a client relax
 * (skip a confirmation, retry freely, assume a closed world). Moving to that value is toward danger.
 */
const HINTS: Record<string, { absent: boolean; relaxing: boolean }> = {
  readOnlyHint: { absent: false, relaxing: true },
  destructiveHint: { absent: true, relaxing: false },
  idempotentHint: { absent: false, relaxing: true },
  openWorldHint: { absent: true, relaxing: false },
};

export function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(stable(a)) === JSON.stringify(stable(b));
}

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `a.b`, or `a["odd key"]` when the key is not a plain identifier. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) return base ? `${base}.${key}` : key;
  return `${base}[${JSON.stringify(key)}]`;
}

type Emit = (kind: ChangeKind, path: string, before?: unknown, after?: unknown) => void;
export type SchemaEmit = (kind: SchemaChangeKind, path: string, before?: unknown, after?: unknown) => void;

function typesOf(schema: Schema): Set<string> | null {
  const type = schema.type;
  if (type === undefined) return null;
  return new Set(Array.isArray(type) ? type.map(String) : [String(type)]);
}

function diffType(a: Schema, b: Schema, path: string, emit: SchemaEmit): void {
  if (deepEqual(a.type, b.type)) return;
  const before = typesOf(a);
  const after = typesOf(b);
  const accepts = (types: Set<string> | null, type: string) => types === null || types.has(type) || (type === 'integer' && types.has('number'));
  const widened = after === null || (before !== null && [...before].every((type) => accepts(after, type)));
  emit(widened ? 'type-widened' : 'type-narrowed', joinPath(path, 'type'), a.type, b.type);
}

function allowedValues(schema: Schema): unknown[] | null {
  if (Array.isArray(schema.enum)) return schema.enum;
  if (Object.hasOwn(schema, 'const')) return [schema.const];
  return null;
}

function diffEnum(a: Schema, b: Schema, path: string, emit: SchemaEmit): void {
  const before = allowedValues(a);
  const after = allowedValues(b);
  if (deepEqual(before, after)) return;
  const where = joinPath(path, Array.isArray(b.enum) || Array.isArray(a.enum) ? 'enum' : 'const');
  const covers = (values: unknown[] | null, value: unknown) => values === null || values.some((item) => deepEqual(item, value));
  const widened = after === null || (before !== null && before.every((value) => covers(after, value)));
  const reordered = widened && after !== null && after.every((value) => covers(before, value));
  // Same values in another order: validation is unchanged, only what the model reads first.
  emit(reordered ? 'meta-changed' : widened ? 'enum-widened' : 'enum-narrowed', where, before ?? undefined, after ?? undefined);
}

function diffBounds(a: Schema, b: Schema, path: string, emit: SchemaEmit): void {
  for (const [keywords, tighterWhenLarger] of [
    [LOWER_BOUNDS, true],
    [UPPER_BOUNDS, false],
  ] as const) {
    for (const keyword of keywords) {
      const before = a[keyword];
      const after = b[keyword];
      if (deepEqual(before, after)) continue;
      let tightened: boolean;
      if (before === undefined) tightened = true;
      else if (after === undefined) tightened = false;
      else if (typeof before === 'number' && typeof after === 'number') tightened = tighterWhenLarger ? after > before : after < before;
      else tightened = true;
      emit(tightened ? 'bounds-tightened' : 'bounds-loosened', joinPath(path, keyword), before, after);
    }
  }
  for (const keyword of RESTRICTING) {
    if (deepEqual(a[keyword], b[keyword])) continue;
    emit(b[keyword] === undefined ? 'bounds-loosened' : 'bounds-tightened', joinPath(path, keyword), a[keyword], b[keyword]);
  }
  if (a.uniqueItems !== b.uniqueItems) {
    emit(b.uniqueItems === true ? 'bounds-tightened' : 'bounds-loosened', joinPath(path, 'uniqueItems'), a.uniqueItems, b.uniqueItems);
  }
}

function requiredOf(schema: Schema): Set<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
}

function diffProperties(a: Schema, b: Schema, path: string, emit: SchemaEmit): void {
  const before = isObject(a.properties) ? a.properties : {};
  const after = isObject(b.properties) ? b.properties : {};
  const requiredBefore = requiredOf(a);
  const requiredAfter = requiredOf(b);
  const names = new Set([...Object.keys(before), ...Object.keys(after), ...requiredBefore, ...requiredAfter]);
  for (const name of [...names].sort()) {
    const where = joinPath(joinPath(path, 'properties'), name);
    const inBefore = Object.hasOwn(before, name);
    const inAfter = Object.hasOwn(after, name);
    if (inBefore && !inAfter) {
      emit('property-removed', where, before[name], undefined);
      continue;
    }
    if (!requiredBefore.has(name) && requiredAfter.has(name)) emit('required-added', where);
    else if (requiredBefore.has(name) && !requiredAfter.has(name) && inAfter) emit('required-removed', where);
    if (!inBefore && inAfter) {
      if (!requiredAfter.has(name)) emit('property-added', where, undefined, after[name]);
      continue;
    }
    if (inBefore && inAfter) diffSchema(before[name], after[name], where, emit);
  }
}

function diffAdditionalProperties(a: Schema, b: Schema, path: string, emit: SchemaEmit): void {
  const before = a.additionalProperties;
  const after = b.additionalProperties;
  if (deepEqual(before, after)) return;
  const where = joinPath(path, 'additionalProperties');
  if (after === false) emit('additional-properties-closed', where, before, after);
  else if (before === false) emit('additional-properties-opened', where, before, after);
  else if (isObject(before) && isObject(after)) diffSchema(before, after, where, emit);
  else emit(isObject(after) ? 'bounds-tightened' : 'bounds-loosened', where, before, after);
}

function diffSubschemas(a: Schema, b: Schema, path: string, emit: SchemaEmit): void {
  for (const keyword of SUBSCHEMA) {
    const before = a[keyword];
    const after = b[keyword];
    if (deepEqual(before, after)) continue;
    const where = joinPath(path, keyword);
    if (before === undefined) emit(keyword === 'not' ? 'schema-changed' : 'bounds-tightened', where, before, after);
    else if (after === undefined) emit(keyword === 'not' ? 'schema-changed' : 'bounds-loosened', where, before, after);
    else diffSchema(before, after, where, emit);
  }
  for (const keyword of ALTERNATIVES) {
    const before = a[keyword];
    const after = b[keyword];
    if (deepEqual(before, after)) continue;
    const where = joinPath(path, keyword);
    if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
      before.forEach((item, index) => diffSchema(item, after[index], joinPath(where, index), emit));
      continue;
    }
    const list = (value: unknown) => (Array.isArray(value) ? value : []);
    const contains = (outer: unknown[], inner: unknown[]) => inner.every((item) => outer.some((candidate) => deepEqual(candidate, item)));
    if (contains(list(after), list(before))) emit('type-widened', where, before, after);
    else if (contains(list(before), list(after))) emit('type-narrowed', where, before, after);
    else emit('schema-changed', where, before, after);
  }
}

const HANDLED = new Set([
  'type',
  'enum',
  'const',
  ...LOWER_BOUNDS,
  ...UPPER_BOUNDS,
  ...RESTRICTING,
  'uniqueItems',
  'properties',
  'required',
  'additionalProperties',
  ...SUBSCHEMA,
  ...ALTERNATIVES,
  ...PROSE,
  'default',
]);

/** Direction-aware comparison of two input schemas (`a` = before, `b` = after). */
export function diffSchema(a: unknown, b: unknown, path: string, emit: SchemaEmit): void {
  if (deepEqual(a, b)) return;
  if (!isObject(a) || !isObject(b)) {
    emit('schema-changed', path, a, b);
    return;
  }
  diffType(a, b, path, emit);
  diffEnum(a, b, path, emit);
  diffBounds(a, b, path, emit);
  diffProperties(a, b, path, emit);
  diffAdditionalProperties(a, b, path, emit);
  diffSubschemas(a, b, path, emit);
  for (const keyword of PROSE) {
    if (!deepEqual(a[keyword], b[keyword])) emit('description-changed', joinPath(path, keyword), a[keyword], b[keyword]);
  }
  if (!deepEqual(a.default, b.default)) emit('default-changed', joinPath(path, 'default'), a.default, b.default);
  const others = new Set([...Object.keys(a), ...Object.keys(b)].filter((key) => !HANDLED.has(key)));
  const own = (schema: Schema, keyword: string) => (Object.hasOwn(schema, keyword) ? schema[keyword] : undefined);
  for (const keyword of [...others].sort()) {
    if (!deepEqual(own(a, keyword), own(b, keyword))) emit('schema-changed', joinPath(path, keyword), own(a, keyword), own(b, keyword));
  }
}

function diffAnnotations(a: unknown, b: unknown, emit: Emit): void {
  const before = isObject(a) ? a : {};
  const after = isObject(b) ? b : {};
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of [...keys].sort()) {
    if (deepEqual(before[key], after[key])) continue;
    const where = joinPath('annotations', key);
    const hint = Object.hasOwn(HINTS, key) ? HINTS[key] : undefined;
    if (hint) {
      const was = typeof before[key] === 'boolean' ? before[key] : hint.absent;
      const now = typeof after[key] === 'boolean' ? after[key] : hint.absent;
      if (was === now) emit('meta-changed', where, before[key], after[key]);
      else emit(now === hint.relaxing ? 'annotation-toward-danger' : 'annotation-toward-caution', where, before[key], after[key]);
    } else if (key === 'title') {
      emit('description-changed', where, before[key], after[key]);
    } else {
      emit('meta-changed', where, before[key], after[key]);
    }
  }
}

/** Everything but the name, serialized: equal for a tool and its renamed successor (normalized tools have sorted keys). */
function definitionKey(tool: NormalizedTool): string {
  return JSON.stringify({ ...tool, name: '' });
}

/** Every classified difference between two normalized tool lists (`before` = expected). */
export function diffTools(before: readonly NormalizedTool[], after: readonly NormalizedTool[]): Change[] {
  const changes: Change[] = [];
  const beforeByName = new Map(before.map((tool) => [tool.name, tool]));
  const afterByName = new Map(after.map((tool) => [tool.name, tool]));
  const removed = before.filter((tool) => !afterByName.has(tool.name));
  const added = after.filter((tool) => !beforeByName.has(tool.name));

  // Added tools by definition, each list in listing order: one pass, however many tools were added.
  const addedByDefinition = new Map<string, NormalizedTool[]>();
  for (const tool of added) {
    const key = definitionKey(tool);
    const same = addedByDefinition.get(key);
    if (same) same.push(tool);
    else addedByDefinition.set(key, [tool]);
  }
  const renamedTo = new Set<string>();
  for (const old of removed) {
    const successor = addedByDefinition.get(definitionKey(old))?.shift();
    if (successor) {
      renamedTo.add(successor.name);
      changes.push({ kind: 'tool-renamed', tool: successor.name, path: '', before: old.name, after: successor.name });
    } else {
      changes.push({ kind: 'tool-removed', tool: old.name, path: '' });
    }
  }
  for (const tool of added) {
    if (!renamedTo.has(tool.name)) changes.push({ kind: 'tool-added', tool: tool.name, path: '' });
  }

  for (const expected of before) {
    const actual = afterByName.get(expected.name);
    // Normalized tools have sorted keys, so equal definitions serialize identically.
    if (!actual || JSON.stringify(expected) === JSON.stringify(actual)) continue;
    const found: Change[] = [];
    const emit: Emit = (kind, path, was, now) => found.push({ kind, tool: expected.name, path, before: was, after: now });
    if (expected.descriptionSha256 !== actual.descriptionSha256) emit('description-changed', 'description');
    diffSchema(expected.inputSchema, actual.inputSchema, 'inputSchema', emit);
    if (!deepEqual(expected.outputSchema, actual.outputSchema)) emit('output-schema-changed', 'outputSchema', expected.outputSchema, actual.outputSchema);
    diffAnnotations(expected.annotations, actual.annotations, emit);
    if (!deepEqual(expected._meta, actual._meta)) emit('meta-changed', '_meta', expected._meta, actual._meta);
    // Anything the classifier could not name is still a change to the hashed definition.
    if (found.length === 0) emit('schema-changed', '');
    changes.push(...found);
  }
  return changes;
}

/**
 * The prompts capability is opt-in (off is conformant) and judged by the prompt comparison, so it is
 * no change of the tool surface's discovery block.
 */
function withoutPrompts(capabilities: unknown): unknown {
  if (!isObject(capabilities)) return capabilities;
  const { prompts: _prompts, ...rest } = capabilities;
  return rest;
}

/** Differences in the modern era's cache hints and `server/discover` summary. */
export function diffModernBlock(before: ModernBlock | undefined, after: ModernBlock | undefined): Change[] {
  if (before === undefined || after === undefined || deepEqual(before, after)) return [];
  const changes: Change[] = [];
  const compare = (path: string, was: unknown, now: unknown) => {
    if (!deepEqual(was, now)) changes.push({ kind: 'modern-block-changed', path, before: was, after: now });
  };
  compare('modern.toolsListCacheHint', before.toolsListCacheHint, after.toolsListCacheHint);
  const discoverBefore: Record<string, unknown> = before.discover ?? {};
  const discoverAfter: Record<string, unknown> = after.discover ?? {};
  for (const key of ['supportedVersions', 'capabilities', 'ttlMs', 'cacheScope'] as const) {
    const read = (discover: Record<string, unknown>) => (key === 'capabilities' ? withoutPrompts(discover[key]) : discover[key]);
    compare(`modern.discover.${key}`, read(discoverBefore), read(discoverAfter));
  }
  return changes;
}

/** How a live profile hash relates to the expected one, in words a reviewer can act on. */
export type Drift =
  | { status: 'match' }
  | { status: 'definitions-differ'; tools: { tool: string; paths: string[] }[] }
  | { status: 'tool-set-differs'; added: string[]; removed: string[] };

/** The parts of a drift explanation: names only one side has, and the changed paths of each named item ('' = the whole item). */
export function driftParts(expected: readonly string[], live: readonly string[], changes: readonly Change[], subjectOf: (change: Change) => string | undefined) {
  const expectedNames = new Set(expected);
  const liveNames = new Set(live);
  const added = live.filter((name) => !expectedNames.has(name));
  const removed = expected.filter((name) => !liveNames.has(name));
  const paths = new Map<string, string[]>();
  for (const change of changes) {
    const subject = subjectOf(change);
    if (subject === undefined) continue;
    paths.set(subject, [...(paths.get(subject) ?? []), change.path]);
  }
  return { added, removed, paths: [...paths] };
}

export function explainDrift(expected: { names: readonly string[]; hash: string }, live: { names: readonly string[]; hash: string }, changes: readonly Change[]): Drift {
  if (expected.hash === live.hash) return { status: 'match' };
  const { added, removed, paths } = driftParts(expected.names, live.names, changes, (change) => change.tool);
  if (added.length > 0 || removed.length > 0) return { status: 'tool-set-differs', added, removed };
  return { status: 'definitions-differ', tools: paths.map(([tool, where]) => ({ tool, paths: where.map((path) => path || '(whole tool)') })) };
}
