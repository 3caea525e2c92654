import { createHash } from 'node:crypto';

/** A tool as it appears in a `tools/list` result (only the fields the contract looks at). */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  _meta?: unknown;
  [key: string]: unknown;
}

/** A tool reduced to what the profile hash covers. */
export interface NormalizedTool {
  name: string;
  descriptionSha256: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  _meta?: unknown;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * UTF-16 code-unit order (JavaScript's `<`): locale-independent, unlike `localeCompare`. Every
 * contract hash and fixture was generated in this order, so it must not change. It is not code-point
 * order: a character above U+FFFF sorts before U+E000–U+FFFF here (see code-point-order.ts).
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Deterministic copy of a JSON value: object keys sorted by UTF-16 code unit, and arrays found
 * directly under a `required` key sorted (their order carries no meaning). Every other
 * array keeps its order: `enum` order is model-visible.
 */
export function stable(value: unknown, parentKey?: string): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => stable(item));
    if (parentKey === 'required' && items.every((item) => typeof item === 'string')) {
      return [...(items as string[])].sort(compareCodeUnits);
    }
    return items;
  }
  if (value === null || typeof value !== 'object') return value;
  // fromEntries defines own properties: a key named `__proto__` stays a key.
  return Object.fromEntries(
    Object.keys(value)
      .sort(compareCodeUnits)
      .map((key) => [key, stable((value as Record<string, unknown>)[key], key)]),
  );
}

function normalizeTool(tool: ListedTool): NormalizedTool {
  const normalized: NormalizedTool = {
    name: tool.name,
    descriptionSha256: sha256Hex(tool.description ?? ''),
    inputSchema: tool.inputSchema === undefined ? {} : stable(tool.inputSchema),
  };
  if (tool.outputSchema !== undefined) normalized.outputSchema = stable(tool.outputSchema);
  if (tool.annotations !== undefined) normalized.annotations = stable(tool.annotations);
  if (tool._meta !== undefined) normalized._meta = stable(tool._meta);
  return normalized;
}

export interface ToolSnapshot {
  names: string[];
  tools: NormalizedTool[];
  hash: string;
}

/** Names sorted, tools normalized in the same order, and the profile hash over both. */
export function snapshotTools(listed: readonly ListedTool[]): ToolSnapshot {
  const sorted = listed
    .filter((tool) => typeof tool.name === 'string' && tool.name.length > 0)
    .sort((a, b) => compareCodeUnits(a.name, b.name));
  const names = sorted.map((tool) => tool.name);
  const tools = sorted.map(normalizeTool);
  return { names, tools, hash: profileHash(names, tools) };
}

/** SHA-256 of the compact JSON `{"names":…,"tools":…}`; the hash every fixture records. */
export function profileHash(names: readonly string[], items: readonly unknown[], itemsKey = 'tools'): string {
  return sha256Hex(JSON.stringify({ names, [itemsKey]: items }));
}
