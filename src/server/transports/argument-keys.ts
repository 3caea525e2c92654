/**
 * The SDK reads `tools/call` and `prompts/get` arguments through a zod record, which drops a
 * top-level `__proto__` key (so it can never replace a prototype). The call would then run as if
 * the key had not been sent, although every tool schema refuses unknown keys. Both transports ask
 * here first and refuse such a call with -32602, as they refuse any other bad argument.
 */
export const INVALID_PARAMS = -32602;

const METHODS_WITH_ARGUMENTS: Readonly<Record<string, string>> = { 'tools/call': 'tool', 'prompts/get': 'prompt' };

export interface ArgumentKeyRefusal {
  /** The request's id, when it has a usable one. */
  id: string | number | null;
  message: string;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function refusalFor(message: unknown): ArgumentKeyRefusal | undefined {
  if (!isPlainObject(message) || typeof message.method !== 'string' || !Object.hasOwn(METHODS_WITH_ARGUMENTS, message.method))
    return undefined;
  const params = message.params;
  if (!isPlainObject(params) || !isPlainObject(params.arguments) || !Object.hasOwn(params.arguments, '__proto__')) return undefined;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const target = typeof params.name === 'string' ? ` for ${METHODS_WITH_ARGUMENTS[message.method]} ${params.name}` : '';
  return { id, message: `Invalid arguments${target}: data must NOT have additional properties ("__proto__")` };
}

/** Why a parsed JSON-RPC message (or batch) must be refused before the SDK sees it, if it must. */
export function argumentKeyRefusal(message: unknown): ArgumentKeyRefusal | undefined {
  if (!Array.isArray(message)) return refusalFor(message);
  for (const entry of message) {
    const refusal = refusalFor(entry);
    if (refusal) return { id: null, message: refusal.message };
  }
  return undefined;
}
