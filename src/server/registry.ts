import type { ProfileName } from '../contract/constants.js';
import type { SecretSinkMode } from './config.js';
import { PROFILES } from './profiles.js';
import { annotationsFor, type ToolAnnotations } from './tools/annotations.js';
import { TOOL_CATALOG } from './tools/catalog.js';
import { ToolError } from './errors.js';
import type { ToolDefinition } from './tools/definition.js';
import { boolean, toInputSchema, type JsonSchema } from './tools/schema.js';

/** A tool as one surface serves it: the definition after narrowing, and its wire form. */
export interface ResolvedTool {
  definition: ToolDefinition;
  /** A durable-secret tool served without a sink: it explains why it cannot run. */
  stub: boolean;
  /** The credential's capabilities (and Partner standing) allow the real tool, stub or not. */
  permitted: boolean;
  inputSchema: JsonSchema;
  annotations: ToolAnnotations;
}

export interface SurfaceInput {
  /** The key's capabilities, or null for the full-surface override. */
  capabilities: ReadonlySet<string> | null;
  /** A distinct Partner (master) credential is configured. */
  partner: boolean;
  secretSink: SecretSinkMode;
}

const STUB_DESCRIPTION = 'Unavailable: no secret sink is configured.';

function stubOf(tool: ToolDefinition): ToolDefinition {
  return {
    ...tool,
    description: STUB_DESCRIPTION,
    input: { properties: {} },
    handler: async (_args, context) => {
      const fileSinkRefusal = context.config.secretSink === 'file' ? tool.fileSinkRefusal : undefined;
      const reason =
        context.config.secretSinkUnavailable ??
        fileSinkRefusal ??
        'it would return durable credential material and no secret sink is configured for it';
      throw new ToolError(410, 'tool_unavailable', `${tool.name} is unavailable: ${reason}.`);
    },
  };
}

/**
 * The confirmation field is policy: the registry adds it to exactly the gated tools. What it
 * means is said once, in the server instructions, not repeated on every gated tool.
 */
function wireSchema(tool: ToolDefinition): JsonSchema {
  if (!tool.gate) return toInputSchema(tool.input);
  const confirm = boolean();
  return toInputSchema({ ...tool.input, properties: { ...tool.input.properties, confirm } });
}

function resolve(tool: ToolDefinition, stub: boolean, permitted: boolean): ResolvedTool {
  const definition = stub ? stubOf(tool) : tool;
  return { definition, stub, permitted, inputSchema: wireSchema(definition), annotations: annotationsFor(definition) };
}

/** Real secret handlers need somewhere to put the secret; some fit only inline. */
function sinkAccepts(tool: ToolDefinition, sink: SecretSinkMode): boolean {
  if (sink === 'inline') return true;
  return sink === 'file' && tool.fileSinkRefusal === undefined;
}

/** The tools a credential may see, sorted by name. */
export function resolveSurface(input: SurfaceInput, catalog: readonly ToolDefinition[] = TOOL_CATALOG): ResolvedTool[] {
  const { capabilities, partner, secretSink } = input;
  const surface: ResolvedTool[] = [];
  for (const base of catalog) {
    const tool = base.narrow ? base.narrow(capabilities) : base;
    if (!tool) continue;
    const capable = capabilities === null || tool.capabilities === 'unmapped' || tool.capabilities.some((c) => capabilities.has(c));
    const permitted = capable && (!tool.partner || partner || capabilities === null);
    if (!tool.secretProducing) {
      if (permitted) surface.push(resolve(tool, false, true));
    } else if (permitted && sinkAccepts(tool, secretSink)) {
      surface.push(resolve(tool, false, true));
    } else if (secretSink !== 'inline') {
      // Without a sink the name stays visible as a stub, so the surface does not depend on it.
      surface.push(resolve(tool, true, permitted));
    }
  }
  return surface;
}

export function profileSurface(profile: ProfileName, secretSink: SecretSinkMode = 'off'): ResolvedTool[] {
  const { capabilities, partner } = PROFILES[profile];
  return resolveSurface({ capabilities: capabilities && new Set(capabilities), partner, secretSink });
}
