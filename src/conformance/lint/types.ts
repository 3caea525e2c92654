import type { LoadedContract } from '../../contract/artifact.js';
import type { Era } from '../../contract/constants.js';
import type { ToolFixture } from '../../contract/fixture.js';
import type { PromptFixture } from '../../contract/prompt-fixture.js';
import type { PolicyInUse } from '../diff/naming-policy.js';

/** The line of a JSON path in the file it was read from (the key, or the nearest value the path reaches). */
export type LineOf = (path: readonly (string | number)[]) => number;

export interface LintFixture {
  /** Relative to the checkout's root, like every file below. */
  file: string;
  /** The profile and era the file name gives. */
  profile: string;
  era: Era;
  fixture: ToolFixture;
  line: LineOf;
}

export interface LintPromptFixture {
  file: string;
  profile: string;
  fixture: PromptFixture;
  line: LineOf;
}

export interface LintText {
  file: string;
  text: string;
}

/** A plugin or bundle manifest that lists tools, each with the line it is listed on. */
export interface LintManifest {
  file: string;
  tools: { name: string; line: number }[];
}

/** A checkout of a B2 MCP server as the linter reads it, without running anything in it. */
export interface LintInput {
  /** Absolute path of the checkout. */
  root: string;
  fixturesDir: string;
  fixtures: LintFixture[];
  prompts: LintPromptFixture[];
  contract?: { file: string; contract: LoadedContract; line: LineOf };
  /** The naming policy the contract publishes, else the bundled contract's (see namingPolicyFor). */
  naming: PolicyInUse;
  /**
   * The generated profile reference; `expected` is what this checker's own generator writes from
   * the contract, when the file carries that generator's marker (else it is held to the fixtures).
   */
  referenceDoc?: LintText & { expected?: string };
  /** README.md, docs/**.md and skill playbooks (skills/**.md). */
  prose: LintText[];
  manifests: LintManifest[];
}

/** What a lint run read, for the report's evidence. */
export interface LintEvidence {
  root: string;
  fixturesDir: string;
  fixtures: string[];
  promptFixtures: string[];
  contract: string | null;
  referenceDoc: { file: string; heldTo: 'generator' | 'fixtures' } | null;
  prose: number;
  manifests: string[];
}
