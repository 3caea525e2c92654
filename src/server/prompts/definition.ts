import type { JsonSchema } from '../tools/schema.js';

/** A workflow prompt: a message template only. It never calls tools and never approves anything. */
export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  /** JSON Schema properties of the arguments; MCP prompt arguments are always strings. */
  args: Record<string, JsonSchema>;
  requiredArgs: readonly string[];
  /** Listed only when these tools are really served (stubs do not count)... */
  requiredTools: readonly string[];
  /** ...and the credential holds these capabilities (or is the full surface). */
  requiredCapabilities: readonly string[];
  render(args: Record<string, string | undefined>): string;
}

export const APPROVAL_NOTE =
  'This prompt is guidance only: it is not approval for any destructive or protection-weakening step. Every such call still needs its own explicit confirmation from the user.';
