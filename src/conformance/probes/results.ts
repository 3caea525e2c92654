import type { CallOutcome } from './sessions.js';

/** The text blocks of a tool result, joined (other block types as JSON). */
export function resultText(outcome: CallOutcome): string {
  const content = (outcome.result?.content ?? []) as { type: string; text?: string }[];
  return content.map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : JSON.stringify(block))).join('\n');
}

/** Everything of a call a secret could hide in, by the place a report names. */
export function callSurfaces(outcome: CallOutcome): { place: string; text: string }[] {
  const surfaces = [{ place: 'result text', text: resultText(outcome) }];
  if (outcome.result?.structuredContent !== undefined)
    surfaces.push({ place: 'structuredContent', text: JSON.stringify(outcome.result.structuredContent) });
  if (outcome.thrown) surfaces.push({ place: 'protocol error', text: outcome.thrown });
  for (const message of outcome.elicitations) surfaces.push({ place: 'elicitation message', text: message });
  return surfaces;
}

/** A presigned S3 URL anywhere in the result (SigV4 query signature). */
export function hasSignedUrl(outcome: CallOutcome): boolean {
  return callSurfaces(outcome).some(({ text }) => /X-Amz-Signature=/i.test(text));
}

/** How much of a server's error text a finding quotes. */
const QUOTED_ERROR_LIMIT = 160;

/** The server's own words, bounded and quoted as a JSON string (control characters escaped); reports escape it further for their format. */
export function quoteServerText(text: string): string {
  const flat = text.trim();
  return JSON.stringify(flat.length > QUOTED_ERROR_LIMIT ? `${flat.slice(0, QUOTED_ERROR_LIMIT)}…` : flat);
}

/**
 * How a refusal or failure reads in a report: the contract's `[code] (HTTP n)` when the text has
 * that shape, and what the server said, bounded (the run masks canaries in it).
 */
export function errorSummary(outcome: CallOutcome): string {
  if (outcome.thrown) return `a protocol error: ${quoteServerText(outcome.thrown)}`;
  const text = resultText(outcome);
  const match = /\[([A-Za-z0-9_.-]{1,64})\]\s*\(HTTP (\d{3})\)/.exec(text);
  return `${match ? `error ${match[1]} (HTTP ${match[2]})` : 'an error'}: ${quoteServerText(text)}`;
}

/** The first place two JSON values differ, as a path (`objects[3].key`), or undefined when equal. */
export function firstDifference(expected: unknown, actual: unknown, path = ''): string | undefined {
  const at = path || '(root)';
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual)) return at;
    if (expected.length !== actual.length) return `${at} (length ${expected.length} vs ${actual.length})`;
    for (let index = 0; index < expected.length; index++) {
      const found = firstDifference(expected[index], actual[index], `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (expected !== null && actual !== null && typeof expected === 'object' && typeof actual === 'object') {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of keys) {
      const childPath = /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}${path ? '.' : ''}${key}` : `${path}[${JSON.stringify(key)}]`;
      if (!(key in expected) || !(key in actual)) return childPath;
      const found = firstDifference((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], childPath);
      if (found) return found;
    }
    return undefined;
  }
  return Object.is(expected, actual) || expected === actual ? undefined : at;
}
