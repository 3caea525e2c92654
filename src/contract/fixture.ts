import { CONTRACT_ISSUE, CONTRACT_VERSION, LEGACY_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION, type Era } from './constants.js';
import { compareCodeUnits, snapshotTools, stable, type ListedTool, type NormalizedTool } from './normalize.js';

export interface CacheHint {
  ttlMs: number;
  cacheScope: string;
}

/** What the modern era adds to a fixture: the `tools/list` cache hint and a `server/discover` summary. */
export interface ModernBlock {
  toolsListCacheHint: CacheHint | null;
  discover: {
    supportedVersions: string[];
    capabilities: unknown;
    ttlMs: number | null;
    cacheScope: string | null;
  } | null;
}

/** The name prefixes a contract counts tools by. */
export const TOOL_PREFIXES = ['b2', 's3', 'bz'] as const;
export type ToolPrefix = (typeof TOOL_PREFIXES)[number];

export type PrefixCounts = { total: number } & Record<ToolPrefix, number>;

/** One `fixtures/tool-contract/<profile>.<era>.json` file. */
export interface ToolFixture {
  contractVersion: number;
  issue: number;
  profile: string;
  era: Era;
  protocolVersion: string;
  transport: string;
  mcpRevision: string;
  sdk: Record<string, string>;
  capabilities: string[] | null;
  counts: PrefixCounts;
  names: string[];
  requiredFields: Record<string, string[]>;
  confirmTools: string[];
  tools: NormalizedTool[];
  /**
   * Model-visible text the profile hash does not cover, compared beside it: each tool's `title`
   * (tools without one are absent) and the server `instructions`. Older fixtures lack both.
   */
  titles?: Record<string, string>;
  /** Each tool's description text beside its hash (snapshots that are their own baseline), so a change shows as a word diff. */
  descriptions?: Record<string, string>;
  instructions?: string | null;
  /**
   * What else a client sees, recorded beside the hash (older fixtures lack them): the capabilities
   * the server declared (`initialize`, or `server/discover` in the modern era; null when it
   * declared none), and each tool's `execution` and `icons` (tools without one are absent).
   */
  serverCapabilities?: Record<string, unknown> | null;
  execution?: Record<string, unknown>;
  icons?: Record<string, unknown>;
  modern?: ModernBlock;
  legacy?: { toolsListCacheHint: null; discover: null };
  hash: string;
}

export interface FixtureInput {
  profile: string;
  era: Era;
  /** Negotiated protocol version for modern; legacy fixtures carry the fixed legacy label. */
  protocolVersion: string;
  transport: 'streamable-http' | 'stdio';
  sdk: Record<string, string>;
  capabilities: string[] | null;
  tools: readonly ListedTool[];
  /** The server instructions (modern: from `server/discover`; legacy: from `initialize`). */
  instructions: string | null;
  /** The capabilities the server declared; null when it declared none. */
  serverCapabilities: Record<string, unknown> | null;
  /** The tools as sent over the wire, when an SDK client may have dropped keys (`execution`, `icons`); default `tools`. */
  wireTools?: readonly ListedTool[];
  modern?: ModernBlock | undefined;
}

export function prefixCounts(names: readonly string[]): PrefixCounts {
  const counts = { total: names.length } as PrefixCounts;
  for (const prefix of TOOL_PREFIXES) counts[prefix] = names.filter((name) => name.startsWith(`${prefix}_`)).length;
  return counts;
}

function schemaProperties(tool: NormalizedTool): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, unknown> } | undefined;
  return schema?.properties && typeof schema.properties === 'object' ? schema.properties : {};
}

export function requiredFieldsOf(tools: readonly NormalizedTool[]): Record<string, string[]> {
  // fromEntries defines own properties: a tool named `__proto__` stays a key.
  return Object.fromEntries(
    tools.map((tool) => {
      const required = (tool.inputSchema as { required?: unknown } | undefined)?.required;
      return [tool.name, Array.isArray(required) ? [...required].map(String).sort(compareCodeUnits) : []];
    }),
  );
}

/** Tools whose input schema offers a `confirm` property: the gated tools, as advertised. */
export function confirmToolsOf(tools: readonly NormalizedTool[]): string[] {
  return tools
    .filter((tool) => 'confirm' in schemaProperties(tool))
    .map((tool) => tool.name)
    .sort(compareCodeUnits);
}

/** The `title` of every listed tool that has one, by name in UTF-16 code-unit order. */
function titlesOf(tools: readonly ListedTool[]): Record<string, string> {
  const titled = tools.filter((tool) => typeof tool.name === 'string' && typeof tool.title === 'string');
  return Object.fromEntries(titled.map((tool) => [tool.name, tool.title as string]).sort(([a], [b]) => compareCodeUnits(a!, b!)));
}

/** One key of every listed tool that has it, by name in UTF-16 code-unit order, normalized. */
function toolKeyOf(tools: readonly ListedTool[], key: string): Record<string, unknown> {
  const having = tools.filter((tool) => typeof tool.name === 'string' && tool[key] !== undefined);
  return Object.fromEntries(having.map((tool) => [tool.name, stable(tool[key])] as const).sort(([a], [b]) => compareCodeUnits(a, b)));
}

export function buildToolFixture(input: FixtureInput): ToolFixture {
  const wire = input.wireTools ?? input.tools;
  const { names, tools, hash } = snapshotTools(input.tools);
  const base = {
    contractVersion: CONTRACT_VERSION,
    issue: CONTRACT_ISSUE,
    profile: input.profile,
    era: input.era,
    protocolVersion: input.era === 'legacy' ? LEGACY_PROTOCOL_VERSION : input.protocolVersion,
    transport: input.transport,
    mcpRevision: MODERN_PROTOCOL_VERSION,
    sdk: input.sdk,
    capabilities: input.capabilities,
    counts: prefixCounts(names),
    names,
    requiredFields: requiredFieldsOf(tools),
    confirmTools: confirmToolsOf(tools),
    tools,
    titles: titlesOf(input.tools),
    instructions: input.instructions,
    serverCapabilities: input.serverCapabilities === null ? null : (stable(input.serverCapabilities) as Record<string, unknown>),
    execution: toolKeyOf(wire, 'execution'),
    icons: toolKeyOf(wire, 'icons'),
  };
  // Key order is part of the file format: the era block comes last, just before the hash.
  return input.era === 'modern'
    ? { ...base, modern: input.modern ?? { toolsListCacheHint: null, discover: null }, hash }
    : { ...base, legacy: { toolsListCacheHint: null, discover: null }, hash };
}

export function toolFixtureFileName(profile: string, era: Era): string {
  return `${profile}.${era}.json`;
}

export function serializeFixture(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
