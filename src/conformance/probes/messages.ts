import type { JSONRPCMessage } from '@modelcontextprotocol/client';

/** One part of a server message a secret could hide in, by the name a report gives it. */
export interface Surface {
  place: string;
  text: string;
  /** The part as sent, for a search of its strings run together. */
  value: unknown;
}

/** What a report calls a request or notification the server sent, by its method. */
const METHOD_PLACES: Record<string, string> = {
  'notifications/message': 'log notification',
  'notifications/progress': 'progress notification',
  'elicitation/create': 'elicitation request',
  'sampling/createMessage': 'sampling request',
};

type Fields = Record<string, unknown>;

function json(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** The text of content blocks: text as is, any other block (resource links, embedded resources, images) as JSON. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return json(content);
  return content
    .map((block: { type?: unknown; text?: unknown }) =>
      block?.type === 'text' && typeof block.text === 'string' ? block.text : JSON.stringify(block),
    )
    .join('\n');
}

/** The parts of a result, each by its place: content, structuredContent, `_meta`, instructions, tools/list, the rest. */
function resultSurfaces(result: Fields): Surface[] {
  const { content, structuredContent, _meta, instructions, tools, ...rest } = result;
  const surfaces: Surface[] = [];
  const add = (place: string, value: unknown, text = json(value)) => surfaces.push({ place, text, value });
  if (content !== undefined) add('result text', content, contentText(content));
  if (structuredContent !== undefined) add('structuredContent', structuredContent);
  if (_meta !== undefined) add('result _meta', _meta);
  if (instructions !== undefined) add('instructions', instructions);
  if (tools !== undefined) add('tools/list', tools);
  if (Object.keys(rest).length > 0) add('result', rest);
  return surfaces;
}

/** Every part of one message the server sent, by the place a report names. */
export function messageSurfaces(message: JSONRPCMessage): Surface[] {
  const fields = message as Fields;
  if ('result' in fields && fields.result && typeof fields.result === 'object') return resultSurfaces(fields.result as Fields);
  if ('error' in fields) return [{ place: 'protocol error', text: json(fields.error), value: fields.error }];
  if (typeof fields.method === 'string') {
    const kind = 'id' in fields ? 'request' : 'notification';
    return [{ place: METHOD_PLACES[fields.method] ?? `${fields.method} ${kind}`, text: json(fields.params ?? {}), value: fields.params }];
  }
  return [{ place: 'message', text: json(message), value: message }];
}

/** Keys whose strings are protocol structure, not payload: they would sit between the halves of a split secret. */
const STRUCTURAL_KEYS = new Set(['jsonrpc', 'id', 'method', 'type', 'level', 'logger']);

/** Every payload string of a message, in document order and run together: a secret split across neighbouring fields reads whole here. */
export function joinedStrings(value: unknown): string {
  const parts: string[] = [];
  const visit = (node: unknown): void => {
    if (typeof node === 'string') parts.push(node);
    else if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object')
      for (const [key, child] of Object.entries(node)) if (!(STRUCTURAL_KEYS.has(key) && typeof child === 'string')) visit(child);
  };
  visit(value);
  return parts.join('');
}
