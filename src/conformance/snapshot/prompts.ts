import { buildPromptFixture, type PromptFixture } from '../../contract/prompt-fixture.js';
import { compareCodeUnits, profileHash, sha256Hex, stable } from '../../contract/normalize.js';
import { deepEqual, diffSchema } from '../diff/schema.js';
import { driftParts } from '../diff/diff.js';
import type { Change, PromptChangeKind, SchemaChangeKind } from '../diff/changes.js';

/** A prompt as `prompts/list` carries it (only the fields the contract looks at). */
export interface ListedPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  [key: string]: unknown;
}

/**
 * A prompt reduced to what is compared: a fixture entry, or what a listing shows. A listing has
 * no required tools or capabilities (they are absent, so never compared) and its `argsSchema`
 * holds only the argument names, descriptions and required flags.
 */
export interface PromptView {
  name: string;
  title: string;
  descriptionSha256: string;
  argsSchema: unknown;
  requiredTools?: string[];
  requiredCapabilities?: string[];
}

/** One connection's prompts: as listed, as views sorted by name, and the hash of those views. */
export interface LivePrompts {
  listed: ListedPrompt[];
  names: string[];
  views: PromptView[];
  hash: string;
}

interface Argument {
  name: string;
  description?: string;
  required: boolean;
}

const JSON_SCHEMA_2020 = 'https://json-schema.org/draft/2020-12/schema';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** What `prompts/list` can show of an arguments schema, as a schema the differ compares. */
function observableSchema(args: readonly Argument[]): unknown {
  const properties = Object.fromEntries(
    args.map((arg) => [arg.name, arg.description === undefined ? {} : { description: arg.description }]),
  );
  return stable({ properties, required: args.filter((arg) => arg.required).map((arg) => arg.name) });
}

/** The arguments a fixture's `argsSchema` declares, as `prompts/list` would show them. */
function argumentsOf(argsSchema: unknown): Argument[] {
  const schema = isObject(argsSchema) ? argsSchema : {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.entries(properties).map(([name, property]) => {
    const description = isObject(property) && typeof property.description === 'string' ? property.description : undefined;
    return { name, required: required.has(name), ...(description === undefined ? {} : { description }) };
  });
}

function listedArguments(prompt: ListedPrompt): Argument[] {
  return (prompt.arguments ?? []).map((arg) => ({
    name: arg.name,
    required: arg.required === true,
    ...(arg.description === undefined ? {} : { description: arg.description }),
  }));
}

const byName = <T extends { name: string }>(items: readonly T[]): T[] => [...items].sort((a, b) => compareCodeUnits(a.name, b.name));

/** A fixture's prompts as a listing would show them, so they compare with a live server's. */
export function observableViews(fixture: PromptFixture | undefined): PromptView[] {
  return (fixture?.prompts ?? []).map((entry) => ({
    name: entry.name,
    title: entry.title,
    descriptionSha256: entry.descriptionSha256,
    argsSchema: observableSchema(argumentsOf(entry.argsSchema)),
  }));
}

/** Hash of views, built like the fixture hash (over names and entries). */
export function viewsHash(views: readonly PromptView[]): string {
  return profileHash(
    views.map((view) => view.name),
    views,
    'prompts',
  );
}

export function livePrompts(listed: readonly ListedPrompt[]): LivePrompts {
  const named = byName(listed.filter((prompt) => typeof prompt.name === 'string' && prompt.name.length > 0));
  const views = named.map((prompt) => ({
    name: prompt.name,
    title: prompt.title ?? '',
    descriptionSha256: sha256Hex(prompt.description ?? ''),
    argsSchema: observableSchema(listedArguments(prompt)),
  }));
  return { listed: [...listed], names: views.map((view) => view.name), views, hash: viewsHash(views) };
}

/**
 * The prompt kind of each schema change found in an arguments schema. Every prompt argument is a
 * string, so type, enum and bound changes are all a narrowing or a widening of what it accepts.
 */
const PROMPT_KIND_OF: Record<SchemaChangeKind, PromptChangeKind> = {
  'property-added': 'prompt-argument-added',
  'property-removed': 'prompt-argument-removed',
  'required-added': 'prompt-argument-required',
  'required-removed': 'prompt-argument-optional',
  'description-changed': 'prompt-text-changed',
  'type-narrowed': 'prompt-argument-narrowed',
  'enum-narrowed': 'prompt-argument-narrowed',
  'bounds-tightened': 'prompt-argument-narrowed',
  'additional-properties-closed': 'prompt-argument-narrowed',
  'schema-changed': 'prompt-argument-narrowed',
  'type-widened': 'prompt-argument-widened',
  'enum-widened': 'prompt-argument-widened',
  'bounds-loosened': 'prompt-argument-widened',
  'additional-properties-opened': 'prompt-argument-widened',
  'default-changed': 'prompt-argument-meta-changed',
  'meta-changed': 'prompt-argument-meta-changed',
  'schema-dialect-changed': 'prompt-argument-meta-changed',
};

function diffRequirements(
  prompt: string,
  path: 'requiredTools' | 'requiredCapabilities',
  before: readonly string[] | undefined,
  after: readonly string[] | undefined,
): Change[] {
  if (!before || !after) return [];
  const added = after.filter((name) => !before.includes(name));
  const removed = before.filter((name) => !after.includes(name));
  return [
    ...(added.length ? [{ kind: 'prompt-requirement-added' as const, prompt, path, after: added.join(', ') }] : []),
    ...(removed.length ? [{ kind: 'prompt-requirement-removed' as const, prompt, path, before: removed.join(', ') }] : []),
  ];
}

/** Every classified difference between two prompt lists (`before` = expected). */
export function diffPrompts(before: readonly PromptView[], after: readonly PromptView[]): Change[] {
  const changes: Change[] = [];
  const afterByName = new Map(after.map((view) => [view.name, view]));
  const beforeNames = new Set(before.map((view) => view.name));
  for (const view of before) if (!afterByName.has(view.name)) changes.push({ kind: 'prompt-removed', prompt: view.name, path: '' });
  for (const view of after) if (!beforeNames.has(view.name)) changes.push({ kind: 'prompt-added', prompt: view.name, path: '' });
  for (const expected of before) {
    const actual = afterByName.get(expected.name);
    if (!actual || deepEqual(expected, actual)) continue;
    const prompt = expected.name;
    if (expected.descriptionSha256 !== actual.descriptionSha256) changes.push({ kind: 'prompt-text-changed', prompt, path: 'description' });
    if (expected.title !== actual.title)
      changes.push({ kind: 'prompt-text-changed', prompt, path: 'title', before: expected.title, after: actual.title });
    diffSchema(expected.argsSchema, actual.argsSchema, 'argsSchema', (kind, path, was, now) =>
      changes.push({ kind: PROMPT_KIND_OF[kind], prompt, path, before: was, after: now }),
    );
    for (const change of diffRequirements(prompt, 'requiredTools', expected.requiredTools, actual.requiredTools)) changes.push(change);
    for (const change of diffRequirements(prompt, 'requiredCapabilities', expected.requiredCapabilities, actual.requiredCapabilities))
      changes.push(change);
  }
  return changes;
}

/** How the prompts found relate to the expected ones (the prompt counterpart of a tool `Drift`). */
export type PromptDrift =
  | { status: 'match' }
  | { status: 'definitions-differ'; prompts: { prompt: string; paths: string[] }[] }
  | { status: 'prompt-set-differs'; added: string[]; removed: string[] };

export interface PromptComparison {
  /** `listed`: both hashes cover only what prompts/list shows (check); `fixture`: the fixtures' own hashes (diff). */
  basis: 'listed' | 'fixture';
  expected: { source: string; hash: string };
  found: { source: string; hash: string };
  drift: PromptDrift;
}

export function explainPromptDrift(
  expected: { names: readonly string[]; hash: string },
  found: { names: readonly string[]; hash: string },
  changes: readonly Change[],
): PromptDrift {
  if (expected.hash === found.hash) return { status: 'match' };
  const { added, removed, paths } = driftParts(expected.names, found.names, changes, (change) => change.prompt);
  if (added.length > 0 || removed.length > 0) return { status: 'prompt-set-differs', added, removed };
  return {
    status: 'definitions-differ',
    prompts: paths.map(([prompt, where]) => ({ prompt, paths: where.map((path) => path || '(whole prompt)') })),
  };
}

/**
 * A listed prompt's arguments schema for a snapshot. `prompts/list` shows only names, descriptions
 * and required flags, so each argument the known entry declares keeps its schema (pattern, enum,
 * bounds) with the listed description; an argument it does not know is a plain string.
 */
function snapshotArgsSchema(prompt: ListedPrompt, known: unknown): unknown {
  const base = isObject(known) ? known : { $schema: JSON_SCHEMA_2020, type: 'object' };
  const knownProperties = isObject(base.properties) ? base.properties : {};
  const args = listedArguments(prompt);
  const properties = Object.fromEntries(
    args.map((arg) => {
      const { description: _description, ...schema } = isObject(knownProperties[arg.name])
        ? (knownProperties[arg.name] as Record<string, unknown>)
        : { type: 'string' };
      return [arg.name, arg.description === undefined ? schema : { ...schema, description: arg.description }];
    }),
  );
  const required = args.filter((arg) => arg.required).map((arg) => arg.name);
  const { properties: _properties, required: _required, ...rest } = base;
  return { ...rest, properties, ...(required.length ? { required } : {}) };
}

/**
 * A prompt fixture of a live listing, in the generator's format. What a listing cannot show is
 * taken from `known` (the fixture already on record) for the prompts it has: required tools and
 * capabilities, argument constraints, the profile's capability set. A prompt it lacks gets empty
 * requirement lists and plain string arguments.
 */
export function snapshotPromptFixture(
  listed: readonly ListedPrompt[],
  input: { profile: string; sdk: Record<string, string>; known?: PromptFixture },
): PromptFixture {
  const entries = new Map((input.known?.prompts ?? []).map((entry) => [entry.name, entry]));
  return buildPromptFixture({
    profile: input.profile,
    sdk: input.sdk,
    capabilities: input.known?.capabilities ?? null,
    prompts: livePrompts(listed).names.map((name) => {
      const prompt = listed.find((candidate) => candidate.name === name)!;
      const entry = entries.get(name);
      return {
        name,
        title: prompt.title ?? '',
        description: prompt.description ?? '',
        argsSchema: snapshotArgsSchema(prompt, entry?.argsSchema),
        requiredTools: entry?.requiredTools ?? [],
        requiredCapabilities: entry?.requiredCapabilities ?? [],
      };
    }),
  });
}
