import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConformError } from '../errors.js';
import { jsonSchemaValidator } from '../connect/json-schema.js';
import { BUNDLED } from '../package-root.js';
import type { TextField } from './visible-text.js';

/**
 * Tool-poisoning pattern sets (rules/poisoning/*.json) and the matcher that applies them to one
 * model-visible text. A set is data: patterns with ids, the cues some of them need beside them,
 * and how each is read (advice when negated, a reference to another tool, an encoded run).
 */
export type Encoding = 'base64' | 'hex' | 'percent';

export interface PatternSpec {
  id: string;
  pattern: string;
  flags?: string;
  /** Negation just before the match ("do not include …") makes it advice, not a hit. */
  advice?: boolean;
  /** At least one of these cues (ids in the set's `cues`) must also match the same text. */
  with?: string[];
  /** Another pattern of the same set must also match the same text (claims that only count in numbers). */
  needsAnother?: boolean;
  /** The match is an encoded run: it counts when it decodes to text in which the set's `decoded` patterns find two different words. */
  decode?: Encoding;
  /** The fields this pattern reads; default: the set's. */
  fields?: TextField[];
}

export interface PatternSetFile {
  id: string;
  description: string;
  fields: TextField[];
  patterns: PatternSpec[];
  cues?: { id: string; pattern: string; flags?: string }[];
  decoded?: { id: string; pattern: string; flags?: string }[];
}

interface LanguageFile {
  negation: string;
  toolReference: string;
  /** Words a reference may capture that never name a tool ("this tool", "the other tool"). */
  notToolNames: string[];
  knownTools: string[];
}

interface CompiledPattern extends Omit<PatternSpec, 'pattern' | 'flags'> {
  regex: RegExp;
  refersToTool: boolean;
}

export interface CompiledSet {
  id: string;
  fields: readonly TextField[];
  patterns: CompiledPattern[];
  cues: Map<string, RegExp>;
  decoded: RegExp[];
}

export interface PatternLibrary {
  sets: Map<string, CompiledSet>;
  negation: RegExp;
  notToolNames: Set<string>;
  knownTools: Set<string>;
}

/** Where a text sits among the server's tools: whose it is, its own parameters, the other tools. */
export interface TextOwner {
  tool?: string | undefined;
  /** Keys (toolKey) of the tool's own parameter names. */
  parameters: ReadonlySet<string>;
  /** Keys (toolKey) of every tool the server lists. */
  serverTools: ReadonlySet<string>;
}

export interface Hit {
  set: string;
  pattern: string;
  excerpt: string;
  /** The cue that made the pattern count, or the text an encoded run decodes to. */
  beside?: string;
}

const PATTERNS_DIR = join(BUNDLED.rulesDir, 'poisoning');
const LANGUAGE_FILE = 'language.json';
const SET_SCHEMA = 'pattern-set.schema.json';
const TOOL_PLACEHOLDER = '{tool}';

function readJson<T>(file: string): T {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (error) {
    throw new ConformError('config', `pattern file ${file}: ${(error as Error).message}`);
  }
}

function globalRegex(pattern: string, flags = ''): RegExp {
  return new RegExp(pattern, flags.includes('g') ? flags : `${flags}g`);
}

/** Names compared as a model reads them: case and separators do not tell two tools apart. */
export function toolKey(name: string): string {
  return name.toLowerCase().replace(/[\s_.-]+/g, '');
}

function compileSet(file: PatternSetFile, toolReference: string): CompiledSet {
  const compile = (item: { pattern: string; flags?: string }) => globalRegex(item.pattern, item.flags);
  const patterns: CompiledPattern[] = file.patterns.map(({ pattern, flags, ...rest }) => ({
    ...rest,
    regex: globalRegex(pattern.replace(TOOL_PLACEHOLDER, toolReference), flags),
    refersToTool: pattern.includes(TOOL_PLACEHOLDER),
  }));
  return {
    id: file.id,
    fields: file.fields,
    patterns,
    cues: new Map((file.cues ?? []).map((cue) => [cue.id, compile(cue)])),
    decoded: (file.decoded ?? []).map(compile),
  };
}

let bundled: PatternLibrary | undefined;

/**
 * Every pattern set of rules/poisoning/, compiled once. With `validate` (tests), each set file is
 * checked against its schema and every cue a pattern names must exist.
 */
export function loadPatternLibrary(dir: string = PATTERNS_DIR, options: { validate?: boolean } = {}): PatternLibrary {
  if (dir === PATTERNS_DIR && !options.validate && bundled) return bundled;
  const language = readJson<LanguageFile>(join(dir, LANGUAGE_FILE));
  const validate = options.validate ? jsonSchemaValidator().compile(readJson(join(dir, SET_SCHEMA))) : undefined;
  const sets = new Map<string, CompiledSet>();
  for (const name of readdirSync(dir)
    .filter((entry) => entry.endsWith('.json') && entry !== LANGUAGE_FILE && !entry.endsWith('.schema.json'))
    .sort()) {
    const file = readJson<PatternSetFile & { $schema?: string }>(join(dir, name));
    if (validate && !validate(file)) {
      const error = validate.errors?.[0];
      throw new ConformError('config', `pattern set ${name}: ${error?.instancePath || '/'} ${error?.message ?? 'is invalid'}`);
    }
    if (`${file.id}.json` !== name)
      throw new ConformError('config', `pattern set ${name}: its id must be "${name.replace(/\.json$/, '')}"`);
    for (const pattern of file.patterns) {
      const missing = (pattern.with ?? []).find((cue) => !(file.cues ?? []).some((candidate) => candidate.id === cue));
      if (missing) throw new ConformError('config', `pattern set ${name}: pattern ${pattern.id} needs the unknown cue ${missing}`);
    }
    sets.set(file.id, compileSet(file, language.toolReference));
  }
  const library = {
    sets,
    negation: new RegExp(`${language.negation}$`, 'i'),
    notToolNames: new Set(language.notToolNames),
    knownTools: new Set(language.knownTools.map(toolKey)),
  };
  if (dir === PATTERNS_DIR && !options.validate) bundled = library;
  return library;
}

/** The set named, or a config error: a rule that names an unknown set cannot run. */
export function patternSet(library: PatternLibrary, id: string): CompiledSet {
  const set = library.sets.get(id);
  if (!set) throw new ConformError('config', `unknown pattern set "${id}" (available: ${[...library.sets.keys()].join(', ')})`);
  return set;
}

const CLAUSE_START = /[.!?;:\n]\s*(?=[^.!?;:\n]*$)/;
const NEGATION_REACH = 60;

/** The clause just before `index` says the verb that follows is not to be done. */
function negatedBefore(text: string, index: number, negation: RegExp): boolean {
  let before = text.slice(Math.max(0, index - NEGATION_REACH), index);
  const clause = CLAUSE_START.exec(before);
  if (clause) before = before.slice(clause.index + clause[0].length);
  return negation.test(before);
}

/**
 * A name in the text refers to another tool: one the text calls a tool, one of the server's, a
 * widely used one, or an identifier; never the text's own tool or one of its parameters.
 */
function refersToAnotherTool(name: string, calledATool: boolean, owner: TextOwner, library: PatternLibrary): boolean {
  const key = toolKey(name);
  if (library.notToolNames.has(key)) return false;
  if (owner.tool !== undefined && key === toolKey(owner.tool)) return false;
  if (owner.parameters.has(key)) return false;
  if (calledATool || owner.serverTools.has(key) || library.knownTools.has(key)) return true;
  // An identifier (snake, kebab or camel case) named as something to call reads as a tool.
  return /[a-z0-9][_-][a-z0-9]|[a-z][A-Z]/.test(name);
}

const PRINTABLE = /^[\x20-\x7e\t\n\r]+$/;

function decodeBytes(run: string, encoding: Encoding): string | undefined {
  if (encoding === 'percent') {
    try {
      return decodeURIComponent(run);
    } catch {
      return undefined;
    }
  }
  const cleaned = encoding === 'hex' ? run.replace(/\\x|0x|[\s:]/gi, '') : run;
  if (encoding === 'hex' && cleaned.length % 2 !== 0) return undefined;
  return Buffer.from(cleaned, encoding).toString('latin1');
}

/** Data such as a JWT's claims or a cursor decodes to JSON: a structure, not instructions. */
function isJson(text: string): boolean {
  if (!/^\s*[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function decodeRun(run: string, encoding: Encoding): string | undefined {
  const decoded = decodeBytes(run, encoding);
  if (decoded === undefined || !PRINTABLE.test(decoded) || isJson(decoded)) return undefined;
  return /[a-z]{3,}\s+[a-z]{2,}/i.test(decoded) ? decoded : undefined;
}

/** Instructions use more than one instruction word; one ("run the tests") is an example, not a payload. */
function readsAsInstructions(decoded: string, patterns: RegExp[]): boolean {
  const words = new Set<string>();
  for (const regex of patterns) for (const match of decoded.matchAll(regex)) words.add(match[0].toLowerCase());
  return words.size >= 2;
}

function shown(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 80);
}

function firstMatch(regex: RegExp, text: string): RegExpExecArray | null {
  regex.lastIndex = 0;
  return regex.exec(text);
}

/** The first match of a pattern in `text` that counts, with what made it count. */
function matchPattern(
  pattern: CompiledPattern,
  set: CompiledSet,
  text: string,
  owner: TextOwner,
  library: PatternLibrary,
): Omit<Hit, 'set' | 'pattern'> | undefined {
  pattern.regex.lastIndex = 0;
  for (let match = pattern.regex.exec(text); match; match = pattern.regex.exec(text)) {
    if (match[0] === '') pattern.regex.lastIndex++;
    if (pattern.advice && negatedBefore(text, match.index, library.negation)) continue;
    const named = match.groups?.tool;
    if (pattern.refersToTool && (named === undefined || !refersToAnotherTool(named, match.groups?.called !== undefined, owner, library)))
      continue;
    let beside: string | undefined;
    if (pattern.decode) {
      const decoded = decodeRun(match[0], pattern.decode);
      if (decoded === undefined || !readsAsInstructions(decoded, set.decoded)) continue;
      beside = `decodes to "${shown(decoded)}"`;
    }
    if (pattern.with) {
      const cue = pattern.with.map((id) => firstMatch(set.cues.get(id)!, text)).find((found) => found !== null);
      if (!cue) continue;
      beside = `with "${shown(cue[0])}"`;
    }
    if (pattern.needsAnother) {
      const other = set.patterns
        .map((candidate) => (candidate === pattern ? null : firstMatch(candidate.regex, text)))
        .find((found) => found);
      if (!other) continue;
      beside = `with "${shown(other[0])}"`;
    }
    return { excerpt: shown(match[0]), ...(beside ? { beside } : {}) };
  }
  return undefined;
}

/**
 * Whether any pattern of the set that reads the field matches the text at all, before the checks
 * that depend on whose text it is: false means no owner can get a hit from this text.
 */
export function mayHit(set: CompiledSet, text: string, field: TextField): boolean {
  return set.patterns.some((pattern) => (pattern.fields ?? set.fields).includes(field) && firstMatch(pattern.regex, text) !== null);
}

/** Every pattern of the set that counts in one text of the given field (one hit per pattern). */
export function findHits(set: CompiledSet, text: string, field: TextField, owner: TextOwner, library: PatternLibrary): Hit[] {
  const hits: Hit[] = [];
  for (const pattern of set.patterns) {
    if (!(pattern.fields ?? set.fields).includes(field)) continue;
    const found = matchPattern(pattern, set, text, owner, library);
    if (found) hits.push({ set: set.id, pattern: pattern.id, ...found });
  }
  return hits;
}
