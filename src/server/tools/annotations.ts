import type { ToolDefinition } from './definition.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * The MCP hints follow from a definition's declared effect and gate, so they cannot drift:
 * a tool is destructive exactly when it has a confirmation gate, read-only only when it
 * neither writes nor is gated, and every tool talks to B2 (open world).
 */
export function annotationsFor(tool: ToolDefinition): ToolAnnotations {
  const destructive = tool.gate !== undefined;
  return {
    readOnlyHint: !destructive && tool.effect === 'read',
    destructiveHint: destructive,
    idempotentHint: tool.effect === 'read' || tool.effect === 'idempotent-write',
    openWorldHint: true,
  };
}
