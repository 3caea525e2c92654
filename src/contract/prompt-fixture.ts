import { CONTRACT_VERSION, MODERN_PROTOCOL_VERSION, PROMPT_CONTRACT_ISSUE } from './constants.js';
import { compareCodeUnits, profileHash, sha256Hex, stable } from './normalize.js';

/** A prompt as the contract records it. */
export interface PromptEntry {
  name: string;
  descriptionSha256: string;
  argsSchema: unknown;
  requiredTools: string[];
  requiredCapabilities: string[];
  title: string;
}

/** One `fixtures/prompt-contract/<profile>.json` file. */
export interface PromptFixture {
  contractVersion: number;
  issue: number;
  profile: string;
  transport: string;
  mcpRevision: string;
  sdk: Record<string, string>;
  capabilities: string[] | null;
  counts: { total: number };
  names: string[];
  requiredTools: Record<string, string[]>;
  requiredCapabilities: Record<string, string[]>;
  prompts: PromptEntry[];
  hash: string;
}

export interface PromptInput {
  name: string;
  title: string;
  description: string;
  argsSchema: unknown;
  requiredTools: readonly string[];
  requiredCapabilities: readonly string[];
}

const sorted = (values: readonly string[]): string[] => [...values].sort(compareCodeUnits);

export function buildPromptFixture(input: {
  profile: string;
  sdk: Record<string, string>;
  capabilities: string[] | null;
  prompts: readonly PromptInput[];
}): PromptFixture {
  const prompts = [...input.prompts]
    .sort((a, b) => compareCodeUnits(a.name, b.name))
    .map((p) => ({
      name: p.name,
      descriptionSha256: sha256Hex(p.description),
      argsSchema: stable(p.argsSchema),
      requiredTools: sorted(p.requiredTools),
      requiredCapabilities: sorted(p.requiredCapabilities),
      title: p.title,
    }));
  const names = prompts.map((p) => p.name);
  return {
    contractVersion: CONTRACT_VERSION,
    issue: PROMPT_CONTRACT_ISSUE,
    profile: input.profile,
    transport: 'in-process',
    mcpRevision: MODERN_PROTOCOL_VERSION,
    sdk: input.sdk,
    capabilities: input.capabilities,
    counts: { total: prompts.length },
    names,
    requiredTools: Object.fromEntries(prompts.map((p) => [p.name, p.requiredTools])),
    requiredCapabilities: Object.fromEntries(prompts.map((p) => [p.name, p.requiredCapabilities])),
    prompts,
    hash: profileHash(names, prompts, 'prompts'),
  };
}
