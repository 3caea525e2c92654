import { stable } from '../../contract/normalize.js';
import { declaredDialect } from '../connect/schema-dialects.js';
import type { ChangeKind, SchemaChangeKind } from './changes.js';

export type Schema = Record<string, unknown>;

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

export function isObject(value: unknown): value is Schema {
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
  const accepts = (types: Set<string> | null, type: string) =>
    types === null || types.has(type) || (type === 'integer' && types.has('number'));
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
  const widened = after === null || before?.every((value) => covers(after, value));
  const reordered = widened && after?.every((value) => covers(before, value));
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
const FAMILY_OF_TYPE: Record<string, string> = {
  integer: 'numeric',
  number: 'numeric',
  string: 'string',
  array: 'array',
  object: 'object',
  boolean: 'boolean',
  null: 'null',
};

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
    const branchTypes =
      typeof branch.type === 'string'
        ? [branch.type]
        : Array.isArray(branch.type) && branch.type.every((t) => typeof t === 'string')
          ? (branch.type as string[])
          : null;
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

export function requiredOf(schema: Schema): Set<string> {
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
    if (!requiredBefore.has(name) && requiredAfter.has(name))
      emit('required-added', where, inBefore ? 'optional' : undefined, inBefore ? 'required' : after[name]);
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
      for (const [index, item] of before.entries()) diffSchema(item, after[index], joinPath(where, index), emit);
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
