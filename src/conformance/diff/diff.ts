import type { ModernBlock } from '../../contract/fixture.js';
import type { ToolRename } from '../../contract/artifact.js';
import { compareCodeUnits, stable, type NormalizedTool } from '../../contract/normalize.js';
import { declaredDialect } from '../connect/schema-dialects.js';

/**
 * MCP tool annotation hints: the value a client assumes when a hint is absent, and the change kind
 * of each move. A move to the value that lets a client relax (skip a confirmation, retry freely,
 * assume a closed world) is the one to review.
 */
const HINTS = {
  readOnlyHint: { absent: false, toTrue: 'annotation-read-only-claimed', toFalse: 'annotation-read-only-withdrawn' },
  destructiveHint: { absent: true, toTrue: 'annotation-destructive-claimed', toFalse: 'annotation-non-destructive-claimed' },
  idempotentHint: { absent: false, toTrue: 'annotation-idempotent-claimed', toFalse: 'annotation-idempotent-withdrawn' },
  openWorldHint: { absent: true, toTrue: 'annotation-open-world-claimed', toFalse: 'annotation-closed-world-claimed' },
} as const;

const ANNOTATION_CHANGE_KINDS = Object.values(HINTS).flatMap((hint) => [hint.toTrue, hint.toFalse]);


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
  ...ANNOTATION_CHANGE_KINDS,
  'output-schema-added',
  'output-schema-removed',
  'output-field-removed',
  'output-field-added',
  'output-widened',
  'output-narrowed',
  'output-changed',
  'task-support-narrowed',
  'task-support-widened',
  'meta-changed',
  'schema-changed',
  'schema-dialect-changed',
  'modern-block-changed',
  'instructions-changed',
  'server-capability-added',
  'server-capability-removed',
  'server-capability-changed',
] as const;

/** A profile whose fixtures (or contract entry) only one side has. */
export const PROFILE_CHANGE_KINDS = ['profile-added', 'profile-removed'] as const;

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

/**
 * Changes of the contract artifact itself, which no fixture holds: what each profile is for, the
 * key capabilities it is derived from, the tools it gates, the backing of each tool, the published
 * counts, the naming policy, the approved cache hint and the SDKs it was generated with. Each maps
 * to one `contract/<kind without its prefix>` rule.
 */
export const CONTRACT_CHANGE_KINDS = [
  'contract-description-changed',
  'contract-key-capabilities-changed',
  'contract-confirm-tool-added',
  'contract-confirm-tool-removed',
  'contract-backing-changed',
  'contract-counts-changed',
  'contract-naming-changed',
  'contract-cache-hint-changed',
  'contract-sdk-changed',
] as const;
export type ContractChangeKind = (typeof CONTRACT_CHANGE_KINDS)[number];

export const CHANGE_KINDS = [...TOOL_CHANGE_KINDS, ...PROMPT_CHANGE_KINDS, ...PROFILE_CHANGE_KINDS] as const;
export type ToolChangeKind = (typeof TOOL_CHANGE_KINDS)[number];
export type PromptChangeKind = (typeof PROMPT_CHANGE_KINDS)[number];
export type ChangeKind = ToolChangeKind | PromptChangeKind | (typeof PROFILE_CHANGE_KINDS)[number] | ContractChangeKind;

/** The kinds the direction-aware schema comparison (`diffSchema`) names. */
export type SchemaChangeKind =
  | 'required-added'
  | 'required-removed'
  | 'property-removed'
  | 'property-added'
  | 'type-narrowed'
  | 'type-widened'
  | 'enum-narrowed'
  | 'enum-widened'
  | 'bounds-tightened'
  | 'bounds-loosened'
  | 'additional-properties-closed'
  | 'additional-properties-opened'
  | 'description-changed'
  | 'default-changed'
  | 'meta-changed'
  | 'schema-changed'
  | 'schema-dialect-changed';

/** Prose a model reads, as far as each side is known: a side that is absent was not there (added or removed text) or was not recorded (only its hash). */
export interface ChangedText {
  before?: string | undefined;
  after?: string | undefined;
}

export interface Change {
  kind: ChangeKind;
  /** The tool the change belongs to; absent for prompt changes and fixture-level changes (the modern block). */
  tool?: string;
  /** The prompt the change belongs to (prompt changes only). */
  prompt?: string;
  /** The profile the change belongs to (profile and contract changes only). */
  profile?: string;
  /** Where inside the tool, prompt or fixture, e.g. `inputSchema.properties.bucketId.type`; '' for the whole item. */
  path: string;
  before?: unknown;
  after?: unknown;
  /** `tool-renamed` only: how the rename was recognised. */
  rename?: RenameBasis;
  /** The model-visible text of a change of prose, or of an added or removed tool, when known. */
  text?: ChangedText;
  /** The tool's input schema on both sides; on the first change inside a tool's definition only, so reports hold each schema once. */
  schemas?: { before: unknown; after: unknown };
}

type Schema = Record<string, unknown>;

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains'];
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains'];
/** The numeric bounds, compared as one lower and one upper bound (see boundOf). */
const NUMERIC_BOUNDS = ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum'];
/** Keywords whose presence restricts values and whose change cannot be ordered: added or changed = tighter. */
const RESTRICTING = ['pattern', 'format', 'multipleOf'];
/** Keywords holding one subschema. */
const SUBSCHEMA = ['items', 'contains', 'propertyNames', 'additionalItems', 'not', 'unevaluatedItems', 'unevaluatedProperties'];
/** Keywords holding a list of alternatives. */
const ALTERNATIVES = ['anyOf', 'oneOf'];
/** Model-visible prose. */
const PROSE = ['description', 'title', 'examples', '$comment'];

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

export type Emit = (kind: ChangeKind, path: string, before?: unknown, after?: unknown) => void;
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

interface Bound {
  keyword: string;
  value: unknown;
  exclusive: boolean;
}

/** The lower (or upper) numeric bound of a canonical schema: at most one keyword carries it. */
function boundOf(schema: Schema, side: 'lower' | 'upper'): Bound | undefined {
  const [inclusive, exclusive] = side === 'lower' ? ['minimum', 'exclusiveMinimum'] : ['maximum', 'exclusiveMaximum'];
  if (schema[exclusive] !== undefined) return { keyword: exclusive, value: schema[exclusive], exclusive: true };
  if (schema[inclusive] !== undefined) return { keyword: inclusive, value: schema[inclusive], exclusive: false };
  return undefined;
}

/** Whether `after` rejects values `before` accepted; null when they are the same bound. */
function boundTightened(before: Bound | undefined, after: Bound | undefined, side: 'lower' | 'upper'): boolean | null {
  if (before === undefined && after === undefined) return null;
  if (before === undefined) return true;
  if (after === undefined) return false;
  if (deepEqual(before.value, after.value) && before.exclusive === after.exclusive) return null;
  if (typeof before.value !== 'number' || typeof after.value !== 'number') return true;
  if (before.value === after.value) return after.exclusive;
  return side === 'lower' ? after.value > before.value : after.value < before.value;
}

function diffBounds(a: Schema, b: Schema, path: string, emit: SchemaEmit): void {
  for (const side of ['lower', 'upper'] as const) {
    const before = boundOf(a, side);
    const after = boundOf(b, side);
    const tightened = boundTightened(before, after, side);
    if (tightened === null) continue;
    // Moving between the inclusive and the exclusive keyword is one edit of one bound.
    const sameKeyword = before === undefined || after === undefined || before.keyword === after.keyword;
    const show = (bound: Bound | undefined) => (bound === undefined || sameKeyword ? bound?.value : { [bound.keyword]: bound.value });
    emit(tightened ? 'bounds-tightened' : 'bounds-loosened', joinPath(path, (after ?? before)!.keyword), show(before), show(after));
  }
  for (const [keywords, tighterWhenLarger] of [
    [LOWER_BOUNDS, true],
    [UPPER_BOUNDS, false],
  ] as const) {
    for (const keyword of keywords.filter((name) => !NUMERIC_BOUNDS.includes(name))) {
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

/** Keywords that constrain nothing at these values, so their presence is the same schema as their absence. */
const NO_OP: Record<string, (value: unknown) => boolean> = {
  additionalProperties: (value) => value === true || (isObject(value) && Object.keys(value).length === 0),
  items: (value) => value === true || (isObject(value) && Object.keys(value).length === 0),
  propertyNames: (value) => value === true || (isObject(value) && Object.keys(value).length === 0),
  uniqueItems: (value) => value === false,
  minLength: (value) => value === 0,
  minItems: (value) => value === 0,
  minProperties: (value) => value === 0,
  required: (value) => Array.isArray(value) && value.length === 0,
};

/** Keywords that constrain only values of one kind of type (JSON Schema ignores them for the others). */
const TYPE_FAMILY_KEYWORDS: Record<string, readonly string[]> = {
  numeric: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  array: ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains'],
  object: ['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'propertyNames', 'patternProperties'],
};
const FAMILY_OF_TYPE: Record<string, string> = { integer: 'numeric', number: 'numeric', string: 'string', array: 'array', object: 'object', boolean: 'boolean', null: 'null' };

/**
 * `anyOf` (or `oneOf`) of single-type alternatives, each constraining only values of its own
 * type, is one schema with a type list: `anyOf: [{type: integer, minimum: 1}, {type: null}]` is
 * `{type: [integer, null], minimum: 1}`. Null when the alternatives cannot be merged that way.
 */
function mergeTypeAlternatives(schema: Schema, keyword: string): Schema | null {
  const branches = schema[keyword];
  if (schema.type !== undefined || !Array.isArray(branches) || branches.length === 0) return null;
  const merged: Schema = {};
  const families = new Set<string>();
  const constrainedFamilies = new Set<string>();
  const types: string[] = [];
  for (const branch of branches) {
    if (!isObject(branch)) return null;
    const branchTypes = typeof branch.type === 'string' ? [branch.type] : Array.isArray(branch.type) && branch.type.every((t) => typeof t === 'string') ? (branch.type as string[]) : null;
    if (!branchTypes || branchTypes.length === 0) return null;
    const branchFamilies = new Set(branchTypes.map((type) => FAMILY_OF_TYPE[type] ?? type));
    const constrained = Object.keys(branch).filter((key) => key !== 'type');
    if (constrained.length > 0) {
      // Its keywords must all belong to its one family, and no other alternative may share that family.
      if (branchFamilies.size !== 1) return null;
      const family = TYPE_FAMILY_KEYWORDS[[...branchFamilies][0]!] ?? [];
      if (!constrained.every((key) => family.includes(key) || PROSE.includes(key))) return null;
    }
    for (const family of branchFamilies) {
      if (families.has(family) && (constrained.length > 0 || constrainedFamilies.has(family))) return null;
    }
    for (const key of constrained) {
      if (key in merged || key in schema) return null;
      merged[key] = branch[key];
    }
    for (const family of branchFamilies) {
      families.add(family);
      if (constrained.length > 0) constrainedFamilies.add(family);
    }
    types.push(...branchTypes);
  }
  const overlapping = new Set(types).size !== types.length || (types.includes('integer') && types.includes('number'));
  if (keyword === 'oneOf' && overlapping) return null;
  const { [keyword]: _alternatives, ...rest } = schema;
  return { ...rest, ...merged, type: types };
}

/**
 * One spelling for schemas that accept the same values, so only real differences are compared:
 * a type list is sorted and a single type is a string; `anyOf` (or a disjoint `oneOf`) of
 * single-type alternatives is a type list (see mergeTypeAlternatives); no-op keywords are dropped; for integers `exclusiveMinimum: n` is
 * `minimum: n + 1` (and likewise above); of an inclusive and an exclusive bound only the tighter stays.
 */
export function canonicalSchema(schema: Schema): Schema {
  const out: Schema = { ...schema };
  for (const [keyword, isNoOp] of Object.entries(NO_OP)) if (isNoOp(out[keyword])) delete out[keyword];
  for (const keyword of ALTERNATIVES) {
    const merged = mergeTypeAlternatives(out, keyword);
    if (!merged) continue;
    for (const key of Object.keys(out)) delete out[key];
    Object.assign(out, merged);
    for (const [key, isNoOp] of Object.entries(NO_OP)) if (isNoOp(out[key])) delete out[key];
    break;
  }
  if (Array.isArray(out.type) && out.type.every((item) => typeof item === 'string')) {
    const types = [...new Set(out.type as string[])].sort();
    out.type = types.length === 1 ? types[0] : types;
  }
  // Draft 4 spelled an exclusive bound as a boolean beside the inclusive keyword.
  for (const [inclusive, exclusive] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && out[inclusive] !== undefined) {
      out[exclusive] = out[inclusive];
      delete out[inclusive];
    } else {
      delete out[exclusive];
    }
  }
  const numericTypes = (Array.isArray(out.type) ? out.type : [out.type]).filter((type) => type === 'integer' || type === 'number');
  const integer = numericTypes.length > 0 && numericTypes.every((type) => type === 'integer');
  for (const side of ['lower', 'upper'] as const) {
    const [inclusive, exclusive] = side === 'lower' ? ['minimum', 'exclusiveMinimum'] : ['maximum', 'exclusiveMaximum'];
    const inc = out[inclusive];
    const exc = out[exclusive];
    const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
    if (integer) {
      const candidates: number[] = [];
      if (finite(inc)) candidates.push(side === 'lower' ? Math.ceil(inc) : Math.floor(inc));
      if (finite(exc)) candidates.push(side === 'lower' ? Math.floor(exc) + 1 : Math.ceil(exc) - 1);
      if (candidates.length === 0 || (inc !== undefined && !finite(inc)) || (exc !== undefined && !finite(exc))) continue;
      out[inclusive] = side === 'lower' ? Math.max(...candidates) : Math.min(...candidates);
      delete out[exclusive];
    } else if (finite(inc) && finite(exc)) {
      const exclusiveIsTighter = side === 'lower' ? exc >= inc : exc <= inc;
      delete out[exclusiveIsTighter ? inclusive : exclusive];
    }
  }
  return out;
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
    // A property new and required at once is one change, carrying its schema.
    if (!requiredBefore.has(name) && requiredAfter.has(name)) emit('required-added', where, inBefore ? 'optional' : undefined, inBefore ? 'required' : after[name]);
    else if (requiredBefore.has(name) && !requiredAfter.has(name) && inAfter) emit('required-removed', where, 'required', 'optional');
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
    // No alternatives at all accepts every value: adding them narrows, dropping them widens.
    if (before === undefined) {
      emit('type-narrowed', where, before, after);
      continue;
    }
    if (after === undefined) {
      emit('type-widened', where, before, after);
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
  '$schema',
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

/** The dialect a schema declares: `key` tells dialects apart, `label` is what a reader sees. */
function dialectOf(schema: Schema): { key: string; label: string } {
  const declared = declaredDialect(schema);
  if (!declared.known) {
    const text = JSON.stringify(declared.declared);
    return { key: text, label: `unknown ${text}` };
  }
  return { key: declared.name, label: Object.hasOwn(schema, '$schema') ? declared.name : `${declared.name} (no $schema)` };
}

/** A change of the declared JSON Schema dialect; spellings of one dialect (http/https, `#`, none for 2020-12) are equal. */
function diffDialect(a: Schema, b: Schema, path: string, emit: SchemaEmit): void {
  const before = dialectOf(a);
  const after = dialectOf(b);
  if (before.key !== after.key) emit('schema-dialect-changed', joinPath(path, '$schema'), before.label, after.label);
}

/** Direction-aware comparison of two input schemas (`a` = before, `b` = after); equivalent spellings are equal. */
export function diffSchema(before: unknown, after: unknown, path: string, emit: SchemaEmit): void {
  if (deepEqual(before, after)) return;
  if (!isObject(before) || !isObject(after)) {
    emit('schema-changed', path, before, after);
    return;
  }
  const a = canonicalSchema(before);
  const b = canonicalSchema(after);
  if (deepEqual(a, b)) return;
  diffDialect(a, b, path, emit);
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

/** A hint's value as a client reads it: a boolean as given, anything else (absent included) its protocol default. */
function hintValue(annotations: Schema, key: keyof typeof HINTS): boolean {
  const value = annotations[key];
  return typeof value === 'boolean' ? value : HINTS[key].absent;
}

/**
 * Annotation changes as the MCP spec reads the hints: an absent hint is its default, so spelling
 * the default out is no change; `destructiveHint` and `idempotentHint` mean something only for a
 * tool that is not read-only, so they are not compared while the tool is read-only afterwards
 * (a tool newly claimed read-only is that claim's finding).
 */
function diffAnnotations(a: unknown, b: unknown, emit: Emit): void {
  const before = isObject(a) ? a : {};
  const after = isObject(b) ? b : {};
  const readOnlyAfter = hintValue(after, 'readOnlyHint');
  const keys = new Set([...Object.keys(before), ...Object.keys(after), ...Object.keys(HINTS)]);
  for (const key of [...keys].sort()) {
    const where = joinPath('annotations', key);
    if (Object.hasOwn(HINTS, key)) {
      const hint = key as keyof typeof HINTS;
      if (readOnlyAfter && (hint === 'destructiveHint' || hint === 'idempotentHint')) continue;
      const now = hintValue(after, hint);
      if (hintValue(before, hint) !== now) emit(now ? HINTS[hint].toTrue : HINTS[hint].toFalse, where, before[key], after[key]);
    } else if (deepEqual(before[key], after[key])) {
      continue;
    } else if (key === 'title') {
      emit('description-changed', where, before[key], after[key]);
    } else {
      emit('meta-changed', where, before[key], after[key]);
    }
  }
}

/** What an output schema's change means for a client that reads the result: more possible values break it, fewer do not. */
const OUTPUT_KINDS: Partial<Record<SchemaChangeKind, ToolChangeKind>> = {
  'property-removed': 'output-field-removed',
  'property-added': 'output-field-added',
  'required-removed': 'output-widened',
  'type-widened': 'output-widened',
  'enum-widened': 'output-widened',
  'bounds-loosened': 'output-widened',
  'additional-properties-opened': 'output-widened',
  'type-narrowed': 'output-narrowed',
  'enum-narrowed': 'output-narrowed',
  'bounds-tightened': 'output-narrowed',
  'additional-properties-closed': 'output-narrowed',
};

/**
 * Whether a change the input comparison calls narrowed (or tightened) only takes values away: a
 * type or enum that is a subset, a bound or restriction added, or a numeric bound moved in. A
 * type, an enum value or a pattern swapped for another also adds values a client never saw.
 */
function onlyTakesAway(kind: SchemaChangeKind, was: unknown, now: unknown): boolean {
  const list = (value: unknown) => (Array.isArray(value) ? value : [value]);
  if (was === undefined) return true;
  if (kind === 'type-narrowed') return list(now).every((type) => list(was).includes(type) || (type === 'integer' && list(was).includes('number')));
  if (kind === 'enum-narrowed') return list(now).every((value) => list(was).some((old) => deepEqual(old, value)));
  if (kind === 'bounds-tightened') return typeof was === 'number' && typeof now === 'number';
  return kind === 'additional-properties-closed';
}

/** The output schema compared like the input schema, with the direction reversed: the server writes, the client reads. */
function diffOutputSchema(before: unknown, after: unknown, emit: Emit): void {
  if (deepEqual(before, after)) return;
  if (before === undefined) return emit('output-schema-added', 'outputSchema', before, after);
  if (after === undefined) return emit('output-schema-removed', 'outputSchema', before, after);
  diffSchema(before, after, 'outputSchema', (kind, path, was, now) => {
    // A field new and required at once is a field added; an existing one made required is a narrowing.
    if (kind === 'required-added') return emit(was === undefined ? 'output-field-added' : 'output-narrowed', path, was, now);
    const mapped = OUTPUT_KINDS[kind];
    if (mapped === 'output-narrowed' && !onlyTakesAway(kind, was, now)) return emit('output-changed', path, was, now);
    emit(mapped ?? kind, path, was, now);
  });
}

/** How a client may call a tool under `execution.taskSupport` (absent: `forbidden`, plain calls only). */
const TASK_SUPPORT: Record<string, readonly string[]> = { forbidden: ['plain'], optional: ['plain', 'task'], required: ['task'] };

/** A tool's `execution`: a change of taskSupport that takes a way of calling away breaks its callers; its default spelled out is metadata. */
export function diffExecution(a: unknown, b: unknown, emit: Emit): void {
  const before = isObject(a) ? a : {};
  const after = isObject(b) ? b : {};
  for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    if (deepEqual(before[key], after[key])) continue;
    const where = joinPath('execution', key);
    const ways = (value: unknown) => TASK_SUPPORT[typeof value === 'string' ? value : 'forbidden'];
    if (key !== 'taskSupport' || !ways(before[key]) || !ways(after[key])) {
      emit('meta-changed', where, before[key], after[key]);
      continue;
    }
    const kept = ways(before[key])!.every((way) => ways(after[key])!.includes(way));
    if (!kept) emit('task-support-narrowed', where, before[key], after[key]);
    else if (!deepEqual(ways(before[key]), ways(after[key]))) emit('task-support-widened', where, before[key], after[key]);
    // The default spelled out (or left out): the same for clients, still a change of what is listed.
    else emit('meta-changed', where, before[key], after[key]);
  }
}

/** Everything but the name, serialized: equal for a tool and its renamed successor (normalized tools have sorted keys). */
function definitionKey(tool: NormalizedTool): string {
  return JSON.stringify({ ...tool, name: '' });
}

/** How a rename was recognised. */
export type RenameBasis =
  /** The contract records the pair; `reverted` when the after side uses the former name. */
  | { by: 'contract'; reverted: boolean }
  | { by: 'definition' }
  /** The same words in another naming style (`getTinyImage`, `get_tiny_image`, `get-tiny-image`). */
  | { by: 'spelling' }
  /** Same required inputs and most input names; `shared` of `total` input names in common. */
  | { by: 'similarity'; confidence: number; shared: number; total: number };

/** Each tool's description text by name, for a side that records it (fixtures hold only its hash otherwise). */
export type DescriptionTexts = Readonly<Record<string, string>>;

export interface DiffOptions {
  /** Renames the contract records (former → current); recognised in either direction. */
  renames?: readonly ToolRename[];
  /** The description texts of each side, where known: a changed, added or removed description then shows its text. */
  descriptions?: { before?: DescriptionTexts | undefined; after?: DescriptionTexts | undefined } | undefined;
}

/** Below this, a removed and an added tool are two changes, not a rename. */
const RENAME_CONFIDENCE = 0.6;

function textOf(texts: DescriptionTexts | undefined, name: string): string | undefined {
  return texts && Object.hasOwn(texts, name) ? texts[name] : undefined;
}

/** Every classified difference between two definitions of one tool, reported under `tool`. */
function definitionChanges(expected: NormalizedTool, actual: NormalizedTool, tool: string, texts: ChangedText = {}): Change[] {
  const found: Change[] = [];
  const emit: Emit = (kind, path, was, now) => found.push({ kind, tool, path, before: was, after: now });
  if (expected.descriptionSha256 !== actual.descriptionSha256) {
    // The values only when both texts are known: a rule comparing old and new text must not take an unrecorded one for none.
    const both = texts.before !== undefined && texts.after !== undefined;
    const text = { ...(texts.before !== undefined ? { before: texts.before } : {}), ...(texts.after !== undefined ? { after: texts.after } : {}) };
    found.push({ kind: 'description-changed', tool, path: 'description', before: both ? texts.before : undefined, after: both ? texts.after : undefined, ...(Object.keys(text).length ? { text } : {}) });
  }
  diffSchema(expected.inputSchema, actual.inputSchema, 'inputSchema', emit);
  diffOutputSchema(expected.outputSchema, actual.outputSchema, emit);
  diffAnnotations(expected.annotations, actual.annotations, emit);
  if (!deepEqual(expected._meta, actual._meta)) emit('meta-changed', '_meta', expected._meta, actual._meta);
  // A part of the definition the classifier does not know is still a change; equivalent schemas and annotations are not.
  const rest = (definition: NormalizedTool) => ({ ...definition, name: '', inputSchema: null, outputSchema: null, annotations: null });
  if (found.length === 0 && !deepEqual(rest(expected), rest(actual))) emit('schema-changed', '', rest(expected), rest(actual));
  if (found[0]) found[0].schemas = { before: expected.inputSchema, after: actual.inputSchema };
  return found;
}

function inputNames(tool: NormalizedTool): { properties: Set<string>; required: Set<string> } {
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
  return { properties: new Set(isObject(schema.properties) ? Object.keys(schema.properties) : []), required: requiredOf(schema) };
}

/** The words of a name in any naming style: `getTinyImage`, `get_tiny_image` and `get-tiny-image` are get, tiny, image. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

/** Words of a name after its prefix: `b2_list_largest_files` → list, largest, files. */
function nameWords(name: string): Set<string> {
  return new Set(name.includes('_') ? wordsOf(name).slice(1) : wordsOf(name));
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): { shared: number; total: number } {
  const shared = [...a].filter((item) => b.has(item)).length;
  return { shared, total: new Set([...a, ...b]).size };
}

/**
 * How likely `added` is `removed` under a new name: the same required inputs are a must, and most
 * input names in common (or, for tools without inputs, most name words); the confidence weighs the
 * input names (3), the name words, equal annotations and an equal description (1 each).
 */
export function renameSimilarity(removed: NormalizedTool, added: NormalizedTool): Extract<RenameBasis, { by: 'similarity' }> | null {
  const before = inputNames(removed);
  const after = inputNames(added);
  if (before.required.size !== after.required.size || [...before.required].some((name) => !after.required.has(name))) return null;
  const inputs = jaccard(before.properties, after.properties);
  const words = jaccard(nameWords(removed.name), nameWords(added.name));
  const wordScore = words.total === 0 ? 0 : words.shared / words.total;
  const signals: [number, number][] = [[wordScore, 1]];
  if (inputs.total > 0) {
    if (inputs.shared / inputs.total < 0.5) return null;
    signals.push([inputs.shared / inputs.total, 3]);
  } else if (wordScore < 0.5) {
    return null;
  }
  signals.push([deepEqual(removed.annotations, added.annotations) ? 1 : 0, 1]);
  signals.push([removed.descriptionSha256 === added.descriptionSha256 ? 1 : 0, 1]);
  const weight = signals.reduce((sum, [, w]) => sum + w, 0);
  const confidence = Math.round((signals.reduce((sum, [score, w]) => sum + score * w, 0) / weight) * 100) / 100;
  return confidence >= RENAME_CONFIDENCE ? { by: 'similarity', confidence, ...inputs } : null;
}

/** Above this many removed × added pairs, renames are matched by the contract and exact definition only. */
const SIMILARITY_PAIR_BUDGET = 10_000;

/**
 * Pair removed with added tools: renames the contract records, then the same name in another
 * naming style, then identical definitions, then
 * equivalent ones, then the most similar. The first two are lookups; the pairwise steps run only
 * while the pairs fit SIMILARITY_PAIR_BUDGET, so a huge hostile list stays linear.
 */
function matchRenames(removed: readonly NormalizedTool[], added: readonly NormalizedTool[], renames: readonly ToolRename[]) {
  const pairs: { from: NormalizedTool; to: NormalizedTool; basis: RenameBasis }[] = [];
  const used = new Set<NormalizedTool>();
  const take = (from: NormalizedTool, to: NormalizedTool, basis: RenameBasis) => {
    pairs.push({ from, to, basis });
    used.add(from).add(to);
  };
  const free = (tools: readonly NormalizedTool[]) => tools.filter((tool) => !used.has(tool));
  const addedByName = new Map(added.map((tool) => [tool.name, tool]));
  for (const from of removed) {
    const forward = renames.find((rename) => rename.from === from.name && addedByName.has(rename.to) && !used.has(addedByName.get(rename.to)!));
    const reverted = forward ? undefined : renames.find((rename) => rename.to === from.name && addedByName.has(rename.from) && !used.has(addedByName.get(rename.from)!));
    const to = forward ? addedByName.get(forward.to) : reverted ? addedByName.get(reverted.from) : undefined;
    if (to) take(from, to, { by: 'contract', reverted: !forward });
  }
  // The same words in another naming style: one lookup per removed tool.
  const addedBySpelling = new Map<string, NormalizedTool[]>();
  for (const tool of free(added)) addedBySpelling.set(wordsOf(tool.name).join(' '), [...(addedBySpelling.get(wordsOf(tool.name).join(' ')) ?? []), tool]);
  for (const from of free(removed)) {
    const to = addedBySpelling.get(wordsOf(from.name).join(' '))?.find((candidate) => !used.has(candidate));
    if (to) take(from, to, { by: 'spelling' });
  }
  // Added tools by definition, each list in listing order: one pass, however many tools were added.
  const addedByDefinition = new Map<string, NormalizedTool[]>();
  for (const tool of free(added)) {
    const key = definitionKey(tool);
    const same = addedByDefinition.get(key);
    if (same) same.push(tool);
    else addedByDefinition.set(key, [tool]);
  }
  for (const from of free(removed)) {
    const to = addedByDefinition.get(definitionKey(from))?.shift();
    if (to) take(from, to, { by: 'definition' });
  }
  if (free(removed).length * free(added).length > SIMILARITY_PAIR_BUDGET) return pairs;
  // An equivalent definition has the same description and input names: only those pairs are compared in full.
  const shape = (tool: NormalizedTool) => `${tool.descriptionSha256} ${[...inputNames(tool).properties].sort().join(',')}`;
  for (const from of free(removed)) {
    const to = free(added).find((candidate) => shape(candidate) === shape(from) && definitionChanges(from, candidate, candidate.name).length === 0);
    if (to) take(from, to, { by: 'definition' });
  }
  const candidates = free(removed)
    .flatMap((from) => free(added).map((to) => ({ from, to, basis: renameSimilarity(from, to) })))
    .filter((candidate): candidate is { from: NormalizedTool; to: NormalizedTool; basis: Extract<RenameBasis, { by: 'similarity' }> } => candidate.basis !== null)
    .sort((x, y) => y.basis.confidence - x.basis.confidence || compareCodeUnits(x.from.name, y.from.name) || compareCodeUnits(x.to.name, y.to.name));
  for (const { from, to, basis } of candidates) if (!used.has(from) && !used.has(to)) take(from, to, basis);
  return pairs;
}

/**
 * Every classified difference between two normalized tool lists (`before` = expected). A rename
 * is one change, and the two definitions are then compared like any other tool's, under the new name.
 */
export function diffTools(before: readonly NormalizedTool[], after: readonly NormalizedTool[], options: DiffOptions = {}): Change[] {
  const changes: Change[] = [];
  const beforeByName = new Map(before.map((tool) => [tool.name, tool]));
  const afterByName = new Map(after.map((tool) => [tool.name, tool]));
  const removed = before.filter((tool) => !afterByName.has(tool.name));
  const added = after.filter((tool) => !beforeByName.has(tool.name));
  const renamed = matchRenames(removed, added, options.renames ?? []);
  const renamedFrom = new Map(renamed.map((pair) => [pair.from.name, pair]));
  const renamedTo = new Set(renamed.map((pair) => pair.to.name));

  const texts = options.descriptions ?? {};
  const described = (side: DescriptionTexts | undefined, name: string, key: 'before' | 'after') => {
    const text = textOf(side, name);
    return text === undefined ? {} : { text: { [key]: text } };
  };

  for (const old of removed) {
    const pair = renamedFrom.get(old.name);
    if (pair) changes.push({ kind: 'tool-renamed', tool: pair.to.name, path: '', before: old.name, after: pair.to.name, rename: pair.basis });
    else changes.push({ kind: 'tool-removed', tool: old.name, path: '', ...described(texts.before, old.name, 'before') });
  }
  for (const tool of added) {
    if (!renamedTo.has(tool.name)) changes.push({ kind: 'tool-added', tool: tool.name, path: '', ...described(texts.after, tool.name, 'after') });
  }
  for (const expected of before) {
    const pair = renamedFrom.get(expected.name);
    const actual = pair ? pair.to : afterByName.get(expected.name);
    if (!actual || definitionKey(expected) === definitionKey(actual)) continue;
    const text = { before: textOf(texts.before, expected.name), after: textOf(texts.after, actual.name) };
    for (const change of definitionChanges(expected, actual, actual.name, text)) changes.push(change);
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

/**
 * Differences in the modern era's cache hints and `server/discover` summary. The capabilities
 * are left out when the fixtures record them on their own (`serverCapabilities`), so a change is named once.
 */
export function diffModernBlock(before: ModernBlock | undefined, after: ModernBlock | undefined, options: { capabilities?: boolean } = {}): Change[] {
  if (before === undefined || after === undefined || deepEqual(before, after)) return [];
  const changes: Change[] = [];
  const compare = (path: string, was: unknown, now: unknown) => {
    if (!deepEqual(was, now)) changes.push({ kind: 'modern-block-changed', path, before: was, after: now });
  };
  compare('modern.toolsListCacheHint', before.toolsListCacheHint, after.toolsListCacheHint);
  const discoverBefore: Record<string, unknown> = before.discover ?? {};
  const discoverAfter: Record<string, unknown> = after.discover ?? {};
  const keys = options.capabilities === false ? (['supportedVersions', 'ttlMs', 'cacheScope'] as const) : (['supportedVersions', 'capabilities', 'ttlMs', 'cacheScope'] as const);
  for (const key of keys) {
    const read = (discover: Record<string, unknown>) => (key === 'capabilities' ? withoutPrompts(discover[key]) : discover[key]);
    compare(`modern.discover.${key}`, read(discoverBefore), read(discoverAfter));
  }
  return changes;
}

/** How a live profile hash relates to the expected one, in words a reviewer can act on (the findings' words: a rename is a rename). */
export type Drift =
  | { status: 'match' }
  | { status: 'definitions-differ'; tools: { tool: string; paths: string[] }[] }
  | { status: 'tool-set-differs'; added: string[]; removed: string[]; renamed?: { from: string; to: string }[] };

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

/** A side of a drift explanation: its names and hash, and its normalized tools when known. */
interface DriftSide {
  names: readonly string[];
  hash: string;
  tools?: readonly NormalizedTool[];
}

/**
 * Tools listed on both sides whose definitions differ only in spelling (a hint spelled out at its
 * default, an equivalent schema): no change is reported for them, and the evidence says why the hash moved.
 */
function respelled(expected: DriftSide, live: DriftSide, changed: ReadonlySet<string>): string[] {
  if (!expected.tools || !live.tools) return [];
  const liveByName = new Map(live.tools.map((tool) => [tool.name, tool]));
  return expected.tools.filter((tool) => !changed.has(tool.name) && liveByName.has(tool.name) && definitionKey(tool) !== definitionKey(liveByName.get(tool.name)!)).map((tool) => tool.name);
}

export function explainDrift(expected: DriftSide, live: DriftSide, changes: readonly Change[]): Drift {
  if (expected.hash === live.hash) return { status: 'match' };
  const { added, removed, paths } = driftParts(expected.names, live.names, changes, (change) => change.tool);
  const renamed = changes.filter((change) => change.kind === 'tool-renamed').map((change) => ({ from: String(change.before), to: String(change.after) }));
  if (added.length > 0 || removed.length > 0) {
    const from = new Set(renamed.map((pair) => pair.from));
    const to = new Set(renamed.map((pair) => pair.to));
    return { status: 'tool-set-differs', added: added.filter((name) => !to.has(name)), removed: removed.filter((name) => !from.has(name)), ...(renamed.length ? { renamed } : {}) };
  }
  const same = respelled(expected, live, new Set(paths.map(([tool]) => tool))).map((tool) => ({ tool, paths: ['(same meaning, spelled differently)'] }));
  return { status: 'definitions-differ', tools: [...paths.map(([tool, where]) => ({ tool, paths: where.map((path) => path || '(whole tool)') })), ...same] };
}
