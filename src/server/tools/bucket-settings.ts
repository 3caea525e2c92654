/**
 * B2's limits on bucket info and CORS rules that a JSON Schema cannot express (byte lengths,
 * totals, uniqueness, reserved prefixes), checked before any B2 call so a bad request is refused
 * with a precise reason (contract §2.7).
 */
import type { B2CorsRule } from '../b2/types.js';
import { ToolError } from '../errors.js';

const MAX_BUCKET_INFO_PAIRS = 10;
const MAX_BUCKET_INFO_KEY_BYTES = 50;
const MAX_BUCKET_INFO_VALUE_BYTES = 10_000;
const MAX_CORS_RULES = 100;
const MAX_CORS_LIST_ITEMS = 100;
const MAX_CORS_STRING_CHARS = 999;
/** A rule's strings together must stay under this many UTF-8 bytes. */
const CORS_RULE_BYTES_LIMIT = 1_000;

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const badRequest = (message: string) => new ToolError(400, 'bad_request', message);
const reservedPrefix = (text: string) => text.toLowerCase().startsWith('b2-');

export function checkBucketInfo(info: Record<string, string>): void {
  const entries = Object.entries(info);
  if (entries.length > MAX_BUCKET_INFO_PAIRS)
    throw badRequest(`bucketInfo holds at most ${MAX_BUCKET_INFO_PAIRS} pairs (got ${entries.length}).`);
  let valueBytes = 0;
  for (const [key, value] of entries) {
    const keyBytes = bytes(key);
    if (keyBytes < 1 || keyBytes > MAX_BUCKET_INFO_KEY_BYTES) {
      throw badRequest(`bucketInfo key ${JSON.stringify(key)} must be 1-${MAX_BUCKET_INFO_KEY_BYTES} bytes.`);
    }
    if (reservedPrefix(key)) throw badRequest(`bucketInfo key ${JSON.stringify(key)} uses the reserved "b2-" prefix.`);
    valueBytes += bytes(value);
  }
  if (valueBytes > MAX_BUCKET_INFO_VALUE_BYTES) {
    throw badRequest(`bucketInfo values total ${valueBytes} bytes; the limit is ${MAX_BUCKET_INFO_VALUE_BYTES}.`);
  }
}

function checkList(rule: string, field: string, list: readonly string[] | null | undefined, minItems: number): number {
  const items = list ?? [];
  if (items.length < minItems || items.length > MAX_CORS_LIST_ITEMS) {
    throw badRequest(`CORS rule ${rule}: ${field} needs ${minItems}-${MAX_CORS_LIST_ITEMS} entries (got ${items.length}).`);
  }
  let total = 0;
  for (const item of items) {
    if (item.length < 1 || item.length > MAX_CORS_STRING_CHARS) {
      throw badRequest(`CORS rule ${rule}: every ${field} entry must be 1-${MAX_CORS_STRING_CHARS} characters.`);
    }
    total += bytes(item);
  }
  return total;
}

export function checkCorsRules(rules: readonly B2CorsRule[]): void {
  if (rules.length > MAX_CORS_RULES) throw badRequest(`At most ${MAX_CORS_RULES} CORS rules (got ${rules.length}).`);
  const names = new Set<string>();
  for (const rule of rules) {
    const name = rule.corsRuleName;
    if (!/^[A-Za-z0-9-]{6,63}$/.test(name))
      throw badRequest(`CORS rule name ${JSON.stringify(name)} must be 6-63 letters, digits or dashes.`);
    if (reservedPrefix(name)) throw badRequest(`CORS rule name ${JSON.stringify(name)} uses the reserved "b2-" prefix.`);
    if (names.has(name)) throw badRequest(`CORS rule name ${JSON.stringify(name)} is used more than once.`);
    names.add(name);
    const total =
      bytes(name) +
      checkList(name, 'allowedOrigins', rule.allowedOrigins, 1) +
      checkList(name, 'allowedOperations', rule.allowedOperations, 1) +
      checkList(name, 'allowedHeaders', rule.allowedHeaders, 0) +
      checkList(name, 'exposeHeaders', rule.exposeHeaders, 0);
    if (total >= CORS_RULE_BYTES_LIMIT) {
      throw badRequest(`CORS rule ${name} is ${total} bytes in total; each rule must stay under ${CORS_RULE_BYTES_LIMIT}.`);
    }
  }
}
