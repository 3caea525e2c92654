import type { BackingCategory } from '../../contract/constants.js';
import type { ToolContext } from '../context.js';
import type { B2Capability } from '../b2/capabilities.js';
import type { ToolArgs, ToolInput } from './schema.js';

/**
 * What a call does to the world; the MCP annotations are derived from it (see annotations.ts).
 * - `read`: observes only.
 * - `local-write`: reads remote data but may write a local file (so not read-only).
 * - `idempotent-write`: repeating the same call leaves the same state.
 * - `write`: each call can add something new (a bucket, an upload, a delete marker, a secret).
 */
export type ToolEffect = 'read' | 'local-write' | 'idempotent-write' | 'write';

/**
 * A confirmation gate: returns what the call would do when it is destructive or weakens a
 * protection, or `undefined` when this particular call is harmless.
 */
export type GateTrigger = (args: ToolArgs) => string | undefined;

/**
 * A successful handler result: structured data (the canonical form) or a plain status line.
 * `containsSecret` marks a durable-secret result; the server skips the sanitizer for it only
 * when the operator chose `B2_SECRET_SINK=inline` (the secret is then the point of the result).
 */
export type ToolOutcome = { structured: unknown; containsSecret?: true } | { text: string };

export type ToolHandler = (args: ToolArgs, context: ToolContext) => Promise<ToolOutcome>;

/** One tool: everything the registry, profiles, fixtures and docs derive from. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  input: ToolInput;
  backing: BackingCategory;
  /** Registered when the key holds ANY of these; `'unmapped'` tools are always registered. */
  capabilities: readonly B2Capability[] | 'unmapped';
  effect: ToolEffect;
  gate?: GateTrigger;
  /** Needs a Partner (distinct master) credential. */
  partner?: boolean;
  /** Creates durable credential material; only served when a secret sink can take it. */
  secretProducing?: boolean;
  /** Why the file secret sink cannot take this tool's secret, when it cannot: only the inline sink then serves it. */
  fileSinkRefusal?: string;
  /**
   * Adjusts the definition to what a capability set allows (e.g. a download-only presign
   * tool); `undefined` drops the tool from that surface.
   */
  narrow?: (capabilities: ReadonlySet<string> | null) => ToolDefinition | undefined;
  handler: ToolHandler;
}
