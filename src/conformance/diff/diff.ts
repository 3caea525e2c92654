import type { ModernBlock } from '../../contract/fixture.js';
import type { ToolRename } from '../../contract/artifact.js';
import { compareCodeUnits, type NormalizedTool } from '../../contract/normalize.js';
import { HINTS, type Change, type ChangedText, type RenameBasis, type SchemaChangeKind, type ToolChangeKind } from './changes.js';
import { deepEqual, diffSchema, isObject, joinPath, requiredOf, type Emit, type Schema } from './schema.js';

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
  if (kind === 'type-narrowed')
    return list(now).every((type) => list(was).includes(type) || (type === 'integer' && list(was).includes('number')));
  if (kind === 'enum-narrowed') return list(now).every((value) => list(was).some((old) => deepEqual(old, value)));
  if (kind === 'bounds-tightened') return typeof was === 'number' && typeof now === 'number';
  return kind === 'additional-properties-closed';
}

/** The output schema compared like the input schema, with the direction reversed: the server writes, the client reads. */
function diffOutputSchema(before: unknown, after: unknown, emit: Emit): void {
  if (deepEqual(before, after)) return;
  if (before === undefined) return void emit('output-schema-added', 'outputSchema', before, after);
  if (after === undefined) return void emit('output-schema-removed', 'outputSchema', before, after);
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
    // Own keys only: a server's "constructor" or "__proto__" is an unknown value, not an inherited one.
    const ways = (value: unknown) => {
      const name = typeof value === 'string' ? value : 'forbidden';
      return Object.hasOwn(TASK_SUPPORT, name) ? TASK_SUPPORT[name] : undefined;
    };
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
    const text = {
      ...(texts.before !== undefined ? { before: texts.before } : {}),
      ...(texts.after !== undefined ? { after: texts.after } : {}),
    };
    found.push({
      kind: 'description-changed',
      tool,
      path: 'description',
      before: both ? texts.before : undefined,
      after: both ? texts.after : undefined,
      ...(Object.keys(text).length ? { text } : {}),
    });
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
function wordsOf(name: string): string[] {
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
    const forward = renames.find(
      (rename) => rename.from === from.name && addedByName.has(rename.to) && !used.has(addedByName.get(rename.to)!),
    );
    const reverted = forward
      ? undefined
      : renames.find((rename) => rename.to === from.name && addedByName.has(rename.from) && !used.has(addedByName.get(rename.from)!));
    const to = forward ? addedByName.get(forward.to) : reverted ? addedByName.get(reverted.from) : undefined;
    if (to) take(from, to, { by: 'contract', reverted: !forward });
  }
  // The same words in another naming style: one lookup per removed tool.
  const addedBySpelling = new Map<string, NormalizedTool[]>();
  for (const tool of free(added))
    addedBySpelling.set(wordsOf(tool.name).join(' '), [...(addedBySpelling.get(wordsOf(tool.name).join(' ')) ?? []), tool]);
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
    const to = free(added).find(
      (candidate) => shape(candidate) === shape(from) && definitionChanges(from, candidate, candidate.name).length === 0,
    );
    if (to) take(from, to, { by: 'definition' });
  }
  const candidates = free(removed)
    .flatMap((from) => free(added).map((to) => ({ from, to, basis: renameSimilarity(from, to) })))
    .filter(
      (candidate): candidate is { from: NormalizedTool; to: NormalizedTool; basis: Extract<RenameBasis, { by: 'similarity' }> } =>
        candidate.basis !== null,
    )
    .sort(
      (x, y) =>
        y.basis.confidence - x.basis.confidence || compareCodeUnits(x.from.name, y.from.name) || compareCodeUnits(x.to.name, y.to.name),
    );
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
    if (pair)
      changes.push({ kind: 'tool-renamed', tool: pair.to.name, path: '', before: old.name, after: pair.to.name, rename: pair.basis });
    else changes.push({ kind: 'tool-removed', tool: old.name, path: '', ...described(texts.before, old.name, 'before') });
  }
  for (const tool of added) {
    if (!renamedTo.has(tool.name))
      changes.push({ kind: 'tool-added', tool: tool.name, path: '', ...described(texts.after, tool.name, 'after') });
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
export function diffModernBlock(
  before: ModernBlock | undefined,
  after: ModernBlock | undefined,
  options: { capabilities?: boolean } = {},
): Change[] {
  if (before === undefined || after === undefined || deepEqual(before, after)) return [];
  const changes: Change[] = [];
  const compare = (path: string, was: unknown, now: unknown) => {
    if (!deepEqual(was, now)) changes.push({ kind: 'modern-block-changed', path, before: was, after: now });
  };
  compare('modern.toolsListCacheHint', before.toolsListCacheHint, after.toolsListCacheHint);
  const discoverBefore: Record<string, unknown> = before.discover ?? {};
  const discoverAfter: Record<string, unknown> = after.discover ?? {};
  const keys =
    options.capabilities === false
      ? (['supportedVersions', 'ttlMs', 'cacheScope'] as const)
      : (['supportedVersions', 'capabilities', 'ttlMs', 'cacheScope'] as const);
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
export function driftParts(
  expected: readonly string[],
  live: readonly string[],
  changes: readonly Change[],
  subjectOf: (change: Change) => string | undefined,
) {
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
  return expected.tools
    .filter(
      (tool) => !changed.has(tool.name) && liveByName.has(tool.name) && definitionKey(tool) !== definitionKey(liveByName.get(tool.name)!),
    )
    .map((tool) => tool.name);
}

export function explainDrift(expected: DriftSide, live: DriftSide, changes: readonly Change[]): Drift {
  if (expected.hash === live.hash) return { status: 'match' };
  const { added, removed, paths } = driftParts(expected.names, live.names, changes, (change) => change.tool);
  const renamed = changes
    .filter((change) => change.kind === 'tool-renamed')
    .map((change) => ({ from: String(change.before), to: String(change.after) }));
  if (added.length > 0 || removed.length > 0) {
    const from = new Set(renamed.map((pair) => pair.from));
    const to = new Set(renamed.map((pair) => pair.to));
    return {
      status: 'tool-set-differs',
      added: added.filter((name) => !to.has(name)),
      removed: removed.filter((name) => !from.has(name)),
      ...(renamed.length ? { renamed } : {}),
    };
  }
  const same = respelled(expected, live, new Set(paths.map(([tool]) => tool))).map((tool) => ({
    tool,
    paths: ['(same meaning, spelled differently)'],
  }));
  return {
    status: 'definitions-differ',
    tools: [...paths.map(([tool, where]) => ({ tool, paths: where.map((path) => path || '(whole tool)') })), ...same],
  };
}
