import type { ResolvedTool } from '../registry.js';
import { PROMPT_CATALOG } from './catalog.js';
import type { PromptDefinition } from './definition.js';

/**
 * Prompts whose tools the credential may use and whose capabilities it holds. A secret tool
 * served as a stub only because no sink is configured still counts: the prompt describes the
 * workflow, the sink decides at call time.
 */
export function availablePrompts(surface: readonly ResolvedTool[], capabilities: ReadonlySet<string> | null): PromptDefinition[] {
  const served = new Set(surface.filter((tool) => tool.permitted).map((tool) => tool.definition.name));
  return PROMPT_CATALOG.filter(
    (prompt) =>
      prompt.requiredTools.every((name) => served.has(name)) &&
      (capabilities === null || prompt.requiredCapabilities.every((c) => capabilities.has(c))),
  );
}
