import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { PROMPT_FIXTURES_DIR, TOOL_FIXTURES_DIR, type LoadedContract } from '../../contract/artifact.js';
import { ERAS, type Era } from '../../contract/constants.js';
import { toolFixtureFileName, type ToolFixture } from '../../contract/fixture.js';
import { profileHash } from '../../contract/normalize.js';
import type { PromptFixture } from '../../contract/prompt-fixture.js';
import { ConformError } from '../errors.js';
import { profileSpellings } from '../connect/target.js';
import { BUNDLED } from '../package-root.js';
import { namingPolicyFor, namingPolicyProblem, type PolicyInUse } from './naming-policy.js';

/** The fixtures of one profile, by era, with the file each came from, and its prompt fixture. */
export interface FixtureSet {
  dir: string;
  profile: string;
  byEra: Partial<Record<Era, ToolFixture>>;
  files: Partial<Record<Era, string>>;
  /** Where the prompt fixture belongs, and the fixture itself when that file exists. */
  prompts: { file: string; fixture?: PromptFixture };
}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConformError('usage', `${what} not found: ${file}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConformError('usage', `${what} is not valid JSON: ${file} (${(error as Error).message})`);
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Parse one fixture file, whatever hash it records (the linter reports a wrong one instead of refusing it). */
export function parseFixture(file: string): ToolFixture {
  const value = readJson(file, 'fixture') as Partial<ToolFixture>;
  const ok =
    value &&
    typeof value === 'object' &&
    typeof value.profile === 'string' &&
    (ERAS as readonly unknown[]).includes(value.era) &&
    isStringArray(value.names) &&
    Array.isArray(value.tools) &&
    typeof value.hash === 'string';
  if (!ok) throw new ConformError('usage', `not a tool fixture (needs profile, era, names, tools, hash): ${file}`);
  return value as ToolFixture;
}

/** Parse one fixture file; refuses a file whose recorded hash does not cover its own tools. */
function readFixture(file: string): ToolFixture {
  const fixture = parseFixture(file);
  if (profileHash(fixture.names, fixture.tools) !== fixture.hash) {
    throw new ConformError(
      'usage',
      `fixture ${file}: its recorded hash does not match its names and tools; regenerate it instead of editing it`,
    );
  }
  return fixture;
}

/**
 * Where the prompt fixture of a profile lives, given the directory of its tool fixtures: in the
 * repository layout (`…/tool-contract/`) the sibling `prompt-contract/`, anywhere else the same
 * directory (`<profile>.json` next to `<profile>.<era>.json`).
 */
export function promptFixturePath(toolFixturesDir: string, profile: string): string {
  const inRepositoryLayout = basename(resolve(toolFixturesDir)) === basename(TOOL_FIXTURES_DIR);
  const dir = inRepositoryLayout ? join(dirname(resolve(toolFixturesDir)), basename(PROMPT_FIXTURES_DIR)) : toolFixturesDir;
  return join(dir, `${profile}.json`);
}

const PROMPT_ENTRY_KEYS = ['name', 'descriptionSha256', 'title'] as const;

/** Parse one prompt fixture, whatever hash it records. */
export function parsePromptFixture(file: string): PromptFixture {
  const value = readJson(file, 'prompt fixture') as Partial<PromptFixture>;
  const ok =
    value &&
    typeof value === 'object' &&
    typeof value.profile === 'string' &&
    isStringArray(value.names) &&
    Array.isArray(value.prompts) &&
    value.prompts.every(
      (entry) =>
        entry !== null &&
        typeof entry === 'object' &&
        PROMPT_ENTRY_KEYS.every((key) => typeof entry[key] === 'string') &&
        'argsSchema' in entry &&
        isStringArray(entry.requiredTools) &&
        isStringArray(entry.requiredCapabilities),
    ) &&
    typeof value.hash === 'string';
  if (!ok)
    throw new ConformError(
      'usage',
      `not a prompt fixture (needs profile, names, prompts with name, descriptionSha256, argsSchema, requiredTools, requiredCapabilities, title, and hash): ${file}`,
    );
  return value as PromptFixture;
}

/** Parse one prompt fixture; refuses a file whose recorded hash does not cover its own prompts. */
function readPromptFixture(file: string): PromptFixture {
  const fixture = parsePromptFixture(file);
  if (profileHash(fixture.names, fixture.prompts, 'prompts') !== fixture.hash) {
    throw new ConformError(
      'usage',
      `prompt fixture ${file}: its recorded hash does not match its names and prompts; regenerate it instead of editing it`,
    );
  }
  return fixture;
}

/** The prompt fixture of a profile next to a tool fixtures directory, when there is one. */
export function findPromptFixture(toolFixturesDir: string, profile: string): { file: string; fixture?: PromptFixture } {
  const file = promptFixturePath(toolFixturesDir, profile);
  if (!existsSync(file)) return { file };
  const fixture = readPromptFixture(file);
  if (fixture.profile !== profile)
    throw new ConformError('usage', `prompt fixture ${file} records profile "${fixture.profile}", expected "${profile}"`);
  return { file, fixture };
}

/**
 * The fixtures of a profile, one per era: the file the contract names for it (by base name, inside
 * `dir`), else `<name>.<era>.json` under any spelling of the profile (upstream names the default
 * profile `phase1-default`, we name it `default`).
 */
export function loadFixtureSet(
  dir: string,
  profile: string,
  eras: readonly Era[],
  contractFiles: Partial<Record<Era, string>> = {},
): FixtureSet {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ConformError('usage', `fixtures directory not found: ${dir}`);
  const spellings = profileSpellings(profile);
  const set: FixtureSet = { dir, profile, byEra: {}, files: {}, prompts: findPromptFixture(dir, profile) };
  for (const era of eras) {
    const named = typeof contractFiles[era] === 'string' ? [basename(contractFiles[era])] : [];
    const candidates = [...new Set([...named, ...spellings.map((name) => toolFixtureFileName(name, era))])].map((name) => join(dir, name));
    const file = candidates.find((candidate) => existsSync(candidate));
    if (!file)
      throw new ConformError(
        'usage',
        `fixture for profile "${profile}" (${era} era) not found in ${dir} (looked for ${candidates.map((candidate) => basename(candidate)).join(', ')})`,
      );
    const fixture = readFixture(file);
    if (!spellings.includes(fixture.profile) || fixture.era !== era) {
      throw new ConformError(
        'usage',
        `fixture ${file} records profile "${fixture.profile}" and era "${fixture.era}", expected "${profile}" and "${era}"`,
      );
    }
    set.byEra[era] = fixture;
    set.files[era] = file;
  }
  return set;
}

/** Every `<profile>.<era>.json` fixture in a directory, keyed by file name. */
export function listFixtureFiles(dir: string): Map<string, ToolFixture> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ConformError('usage', `fixtures directory not found: ${dir}`);
  const out = new Map<string, ToolFixture>();
  for (const name of readdirSync(dir).sort()) {
    if (/^[^.]+\.(modern|legacy)\.json$/.test(name)) out.set(name, readFixture(join(dir, name)));
  }
  return out;
}

/** Why a contract artifact cannot be used, or null: only its profiles are required, each with its names and hash. */
function contractProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  const profiles = (value as { profiles?: unknown }).profiles;
  if (profiles === null || typeof profiles !== 'object' || Array.isArray(profiles)) return 'needs a "profiles" object';
  for (const [name, profile] of Object.entries(profiles)) {
    const ok =
      profile !== null &&
      typeof profile === 'object' &&
      isStringArray((profile as { names?: unknown }).names) &&
      typeof (profile as { hash?: unknown }).hash === 'string';
    if (!ok) return `profile "${name}" needs "names" and "hash"`;
  }
  const naming = (value as { naming?: unknown }).naming;
  return naming === undefined ? null : namingPolicyProblem(naming);
}

/**
 * Read a contract artifact of any generation: what a run needs from it is read when present (see
 * contractGaps). An unusable file is a usage error that says how to name another.
 */
export function loadContract(file: string): LoadedContract {
  let value: unknown;
  try {
    value = readJson(file, 'contract artifact');
  } catch (error) {
    throw new ConformError('usage', `${(error as Error).message}; name the contract to use with --contract FILE`);
  }
  const problem = contractProblem(value);
  if (problem)
    throw new ConformError('usage', `contract artifact ${file} cannot be used: ${problem}; name the contract to use with --contract FILE`);
  return value as LoadedContract;
}

/** The parts of a contract a run would use and this one lacks, as notes for the evidence. */
export function contractGaps(contract: LoadedContract, file: string): string[] {
  const gaps: string[] = [];
  if (!contract.toolBacking)
    gaps.push(
      `the contract ${file} has no toolBacking (it predates backing categories): tool backing and counts per backing category are not judged`,
    );
  if (!contract.approvedCacheHint) gaps.push(`the contract ${file} has no approvedCacheHint: cache hints are not judged against it`);
  return gaps;
}

/** Where a repository keeps its contract artifact, relative to its root: ours, then upstream's layout. */
export const CONTRACT_LOCATIONS = ['docs/generated/tool-profile-contract.json', 'docs/tool-profile-contract.json'] as const;

/**
 * The contract artifact of the repository a fixtures directory belongs to: the nearest ancestor
 * with a file at one of CONTRACT_LOCATIONS, looking no further than the repository root (a
 * directory with .git or package.json).
 */
export function contractBeside(fixturesDir: string): string | undefined {
  let dir = resolve(fixturesDir);
  for (;;) {
    for (const location of CONTRACT_LOCATIONS) {
      const file = join(dir, location);
      if (existsSync(file)) return file;
    }
    const parent = dirname(dir);
    if (parent === dir || existsSync(join(dir, '.git')) || existsSync(join(dir, 'package.json'))) return undefined;
    dir = parent;
  }
}

/** The contract a run uses, the file it came from, and the naming policy it publishes. */
export interface ContractInUse {
  file: string;
  contract: LoadedContract;
  naming: PolicyInUse;
}

/**
 * The contract a run uses: --contract, else the one of the repository the fixtures come from,
 * else the bundled one; with the naming policy it publishes (or the bundled one's, see namingPolicyFor).
 */
export function contractInUse(contractFile: string | undefined, fixturesDirs: readonly string[]): ContractInUse {
  const file = contractFile ?? fixturesDirs.map(contractBeside).find((found) => found !== undefined) ?? BUNDLED.contractFile;
  const contract = loadContract(file);
  const naming = namingPolicyFor(contract, file === BUNDLED.contractFile ? contract : loadContract(BUNDLED.contractFile));
  return { file, contract, naming };
}
