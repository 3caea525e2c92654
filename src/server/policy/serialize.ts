import type { CallToolResult } from '@modelcontextprotocol/server';
import type { OutputFormat } from '../config.js';
import type { StatusError } from '../errors.js';
import type { ToolOutcome } from '../tools/definition.js';
import { estimateTokens } from './token-estimate.js';
import { encodeToon, exceedsToonBounds } from './toon.js';

export interface TextEncoder {
  format: OutputFormat;
  /** Called once per fallback reason so operators learn TOON was skipped, without log floods. */
  onToonFallback?: (reason: 'bounds' | 'encode_error') => void;
}

/** Normalize through the JSON data model: drops undefined, NaN → null, Dates → strings. */
function toJsonValue(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

function toonOrJson(value: unknown, compactJson: string, encoder: TextEncoder): string {
  if (exceedsToonBounds(value, compactJson.length)) {
    encoder.onToonFallback?.('bounds');
    return compactJson;
  }
  try {
    return encodeToon(value) || '{}';
  } catch {
    encoder.onToonFallback?.('encode_error');
    return compactJson;
  }
}

/** `auto` keeps TOON only when it is estimated to cost fewer tokens than compact JSON. */
function textBlock(value: unknown, compactJson: string, encoder: TextEncoder): string {
  if (encoder.format === 'json') return compactJson;
  const toon = toonOrJson(value, compactJson, encoder);
  if (encoder.format === 'toon' || toon === compactJson) return toon;
  return estimateTokens(toon) < estimateTokens(compactJson) ? toon : compactJson;
}

/**
 * A success: `structuredContent` is the canonical (already sanitized) value, and the one text
 * block renders it in the configured format. Plain status lines stay plain text.
 */
export function successResult(outcome: ToolOutcome, encoder: TextEncoder): CallToolResult {
  if ('text' in outcome) return { content: [{ type: 'text', text: outcome.text }] };
  const value = toJsonValue(outcome.structured);
  const structured =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  const compactJson = JSON.stringify(structured);
  return { content: [{ type: 'text', text: textBlock(structured, compactJson, encoder) }], structuredContent: structured };
}

/** The one error shape every tool failure takes. */
export function formatToolError(error: Pick<StatusError, 'status' | 'code' | 'message'> & { requestId?: string | undefined }): string {
  const suffix = error.requestId ? ` (requestId: ${error.requestId})` : '';
  return `B2 Error [${error.code}] (HTTP ${error.status}): ${error.message}${suffix}`;
}

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
