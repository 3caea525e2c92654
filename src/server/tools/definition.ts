import type { BackingCategory } from '../../contract/constants.js';
import type { ToolContext } from '../context.js';
import type { B2Capability } from '../b2/capabilities.js';
import type { ArgsOf, ToolInput } from './schema.js';

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
export type GateTrigger<I extends ToolInput = ToolInput> = (args: ArgsOf<I>) => string | undefined;

/**
 * A successful handler result: structured data (the canonical form) or a plain status line.
 * `containsSecret` marks a durable-secret result; the server skips the sanitizer for it only
 * when the operator chose `B2_SECRET_SINK=inline` (the secret is then the point of the result).
 */
export type ToolOutcome = { structured: unknown; containsSecret?: true } | { text: string };

/** Runs one call; its arguments are typed from the tool's input (`I`), which admitted them before the call. */
export type ToolHandler<I extends ToolInput = ToolInput> = (args: ArgsOf<I>, context: ToolContext) => Promise<ToolOutcome>;

/**
 * One tool: everything the registry, profiles, fixtures and docs derive from. `I` is its input,
 * which types the arguments its gate and handler read; build one with `defineTool`.
 */
export interface ToolDefinition<I extends ToolInput = ToolInput> {
  name: string;
  title: string;
  description: string;
  input: I;
  backing: BackingCategory;
  /** Registered when the key holds ANY of these; `'unmapped'` tools are always registered. */
  capabilities: readonly B2Capability[] | 'unmapped';
  effect: ToolEffect;
  gate?: GateTrigger<I> | undefined;
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
  narrow?: ((capabilities: ReadonlySet<string> | null) => ToolDefinition | undefined) | undefined;
  handler: ToolHandler<I>;
}

/**
 * A tool whose gate and handler read arguments typed from its input. The catalog holds tools of
 * many inputs, so the result forgets which: the server validates every call against the input
 * schema before the gate or handler sees it, which is what makes the typed reading sound.
 */
export function defineTool<I extends ToolInput>(definition: ToolDefinition<I>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}
