import { ToolError, type ToolHandler } from './definition.js';

/** Handler for a tool whose backend has not landed yet: a clear error, never a fake success. */
export function pendingHandler(toolName: string): ToolHandler {
  return async () => {
    throw new ToolError(501, 'not_implemented', `${toolName} is not available in this build of b2-mcp.`);
  };
}
