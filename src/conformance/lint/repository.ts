import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { PROFILES_DOC_PATH, TOOL_FIXTURES_DIR, type ContractArtifact } from '../../contract/artifact.js';
import type { Era } from '../../contract/constants.js';
import { PROFILES_DOC_MARKER, renderProfilesDoc } from '../../contract/profiles-doc.js';
import { ConformError } from '../errors.js';
import { CONTRACT_LOCATIONS, loadContract, parseFixture, parsePromptFixture, promptFixturePath } from '../diff/fixtures.js';
import { namingPolicyFor } from '../diff/naming-policy.js';
import { BUNDLED } from '../package-root.js';
import { jsonLines } from './lines.js';
import type { LintEvidence, LintInput, LintManifest, LintText } from './types.js';

/** Where a checkout keeps its tool fixtures: our layout, then upstream's. */
const FIXTURE_LOCATIONS = [TOOL_FIXTURES_DIR, 'tests/fixtures/tool-contract'] as const;
/** Where it keeps the generated profile reference: ours, then upstream's. */
const REFERENCE_DOC_LOCATIONS = [PROFILES_DOC_PATH, 'docs/TOOL_PROFILES.md'] as const;
/** Where plugin and bundle manifests that may list tools are looked for (JSON files with a top-level `tools` list). */
const MANIFEST_DIRS = ['.', '.claude-plugin', 'skills'] as const;
/** Folders whose Markdown is prose a reader or a model follows: docs and skill playbooks. */
const PROSE_DIRS = ['docs', 'skills'] as const;

const FIXTURE_FILE = /^([^.]+)\.(modern|legacy)\.json$/;

function firstExisting(root: string, candidates: readonly string[], kind: 'file' | 'directory' = 'file'): string | undefined {
  return candidates.find((candidate) => {
    const stat = lstatSync(join(root, candidate), { throwIfNoEntry: false });
    return kind === 'file' ? stat?.isFile() : stat?.isDirectory();
  });
}

/** A regular file of the checkout itself: a symbolic link may point anywhere on the machine, so it is not read. */
function isOwnFile(root: string, path: string): boolean {
  return lstatSync(join(root, path), { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * Every regular file under a folder of the checkout, relative to the root, in a stable order (dot
 * folders, node_modules and symbolic links skipped).
 */
function filesUnder(root: string, dir: string): string[] {
  const absolute = join(root, dir);
  if (!lstatSync(absolute, { throwIfNoEntry: false })?.isDirectory()) return [];
  return readdirSync(absolute, { recursive: true, encoding: 'utf8' })
    .filter((path) => !path.split(sep).some((part) => part.startsWith('.') || part === 'node_modules'))
    .map((path) => join(dir, path).split(sep).join('/'))
    .filter((path) => isOwnFile(root, path))
    .sort();
}

function readText(root: string, file: string): LintText {
  return { file, text: readFileSync(join(root, file), 'utf8') };
}

/** The tools a manifest lists: a top-level `tools` array of names or of objects with a name. */
function manifestOf(root: string, file: string): LintManifest | undefined {
  const text = readFileSync(join(root, file), 'utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const tools = (value as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return undefined;
  const line = jsonLines(text);
  const listed = tools.flatMap((entry: unknown, index) => {
    const name = typeof entry === 'string' ? entry : (entry as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? [{ name, line: line(typeof entry === 'string' ? ['tools', index] : ['tools', index, 'name']) }] : [];
  });
  return { file, tools: listed };
}

function manifests(root: string): LintManifest[] {
  const candidates = MANIFEST_DIRS.flatMap((dir) =>
    dir === '.'
      ? readdirSync(root).filter((name) => name.endsWith('.json') && name !== 'package.json' && isOwnFile(root, name))
      : filesUnder(root, dir).filter((path) => path.endsWith('.json')),
  );
  return [...new Set(candidates)].flatMap((file) => manifestOf(root, file) ?? []);
}

/**
 * Markdown that says near its top that it is generated (a `<!-- Generated …` line among its first
 * five) belongs to its source: lint cannot tell its prose from the data it renders (rule examples
 * quoting invented tool names), so the prose rules skip it. The profile reference is generated
 * too and has rules of its own.
 */
function isGenerated(text: string): boolean {
  return text.split('\n', 5).some((line) => /^<!--\s*generated\b/i.test(line));
}

/** What our own generator would write for this contract, when it could have written it (a contract with every part the reference shows). */
function generatorOutput(text: string, contract: LintInput['contract']): string | undefined {
  if (!text.startsWith(`${PROFILES_DOC_MARKER}\n`) || !contract) return undefined;
  const value = contract.contract;
  const complete =
    value.approvedCacheHint &&
    value.backingCategories &&
    Object.values(value.profiles).every((profile) => profile.backingCounts && Array.isArray(profile.confirmTools));
  return complete ? renderProfilesDoc(value as ContractArtifact) : undefined;
}

/**
 * Read a checkout: its tool and prompt fixtures, contract artifact, generated profile reference,
 * README, docs, skill playbooks and manifests. Nothing in it is run, and no symbolic link is
 * followed (one could point at any file of the machine running lint). A directory without tool
 * fixtures is not a checkout of a B2 MCP server: a usage error.
 */
export function readRepository(root: string): LintInput {
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new ConformError('usage', `lint: directory not found: ${root}`);
  const fixturesDir = firstExisting(root, FIXTURE_LOCATIONS, 'directory');
  if (!fixturesDir)
    throw new ConformError(
      'usage',
      `lint: ${root} holds no tool fixtures (looked for ${FIXTURE_LOCATIONS.join('/, ')}/); pass the root of a B2 MCP server checkout`,
    );
  const fixtures = readdirSync(join(root, fixturesDir))
    .filter((name) => FIXTURE_FILE.test(name) && isOwnFile(root, `${fixturesDir}/${name}`))
    .sort()
    .map((name) => {
      const [, profile, era] = FIXTURE_FILE.exec(name)!;
      const file = `${fixturesDir}/${name}`;
      const text = readFileSync(join(root, file), 'utf8');
      return { file, profile: profile!, era: era as Era, fixture: parseFixture(join(root, file)), line: jsonLines(text) };
    });
  if (fixtures.length === 0) throw new ConformError('usage', `lint: ${join(root, fixturesDir)} holds no <profile>.<era>.json fixture`);
  const prompts = [...new Set(fixtures.map((entry) => entry.profile))].flatMap((profile) => {
    const file = relative(root, promptFixturePath(join(root, fixturesDir), profile))
      .split(sep)
      .join('/');
    if (!isOwnFile(root, file)) return [];
    return [{ file, profile, fixture: parsePromptFixture(join(root, file)), line: jsonLines(readFileSync(join(root, file), 'utf8')) }];
  });
  const contractFile = firstExisting(root, CONTRACT_LOCATIONS);
  const contract = contractFile
    ? {
        file: contractFile,
        contract: loadContract(join(root, contractFile)),
        line: jsonLines(readFileSync(join(root, contractFile), 'utf8')),
      }
    : undefined;
  const bundled = loadContract(BUNDLED.contractFile);
  const docFile = firstExisting(root, REFERENCE_DOC_LOCATIONS);
  const doc = docFile ? readText(root, docFile) : undefined;
  const expected = doc ? generatorOutput(doc.text, contract) : undefined;
  const proseFiles = [
    ...(isOwnFile(root, 'README.md') ? ['README.md'] : []),
    ...PROSE_DIRS.flatMap((dir) => filesUnder(root, dir).filter((path) => path.endsWith('.md'))),
  ];
  return {
    root,
    fixturesDir,
    fixtures,
    prompts,
    ...(contract ? { contract } : {}),
    naming: namingPolicyFor(contract?.contract ?? bundled, bundled),
    ...(doc ? { referenceDoc: { ...doc, ...(expected !== undefined ? { expected } : {}) } } : {}),
    prose: proseFiles.map((file) => readText(root, file)).filter((text) => text.file === docFile || !isGenerated(text.text)),
    manifests: manifests(root),
  };
}

export function lintEvidence(input: LintInput): LintEvidence {
  return {
    root: input.root,
    fixturesDir: input.fixturesDir,
    fixtures: input.fixtures.map((entry) => entry.file),
    promptFixtures: input.prompts.map((entry) => entry.file),
    contract: input.contract?.file ?? null,
    referenceDoc: input.referenceDoc
      ? { file: input.referenceDoc.file, heldTo: input.referenceDoc.expected !== undefined ? 'generator' : 'fixtures' }
      : null,
    prose: input.prose.length,
    manifests: input.manifests.map((manifest) => manifest.file),
  };
}
