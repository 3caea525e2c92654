/**
 * Where a gated call sends data, and what a new key could do: the part of an approval question
 * (contract §6.4) a human needs to tell a routine change from one that hands data or power to
 * someone else. Every destination is named, none summarised as "+N more".
 */
import { KEY_CAPABILITY_RISKS } from '../tools/key-policy.js';
import type { ToolArgs } from '../tools/schema.js';

/** Makes one value safe to show: redacted, collapsed, cut and quoted. */
type Show = (value: unknown) => string;

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const recordsOf = (value: unknown): Array<Record<string, unknown>> => (Array.isArray(value) ? value.filter(isRecord) : []);
const unique = (values: string[]): string[] => [...new Set(values)];
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
/** `buckets ["a", "b"]`: brackets keep a list apart from the parts around it. */
const listed = (noun: string, values: string[], show: Show): string => `${noun} [${values.map(show).join(', ')}]`;

/** Scheme and host: where a webhook goes, without the path or query that may hold its token. */
function endpointOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return '(not a URL)';
  }
}

/** `b2_set_bucket_notification_rules`: the endpoint (scheme and host; paths may hold tokens) of each webhook. */
function webhookEndpoints(args: ToolArgs, show: Show): string[] {
  const urls = recordsOf(args.eventNotificationRules)
    .map((rule) => (isRecord(rule.targetConfiguration) ? rule.targetConfiguration.url : undefined))
    .filter((url): url is string => typeof url === 'string');
  return urls.length > 0 ? [`sending events to ${listed('webhooks', unique(urls.map(endpointOf)), show)}`] : [];
}

/** `b2_update_bucket`: the buckets this one would copy into, and the keys that may copy into it. */
function replicationPeers(args: ToolArgs, show: Show): string[] {
  const configuration = args.replicationConfiguration;
  if (!isRecord(configuration)) return [];
  const parts: string[] = [];
  const source = configuration.asReplicationSource;
  if (isRecord(source)) {
    const rules = recordsOf(source.replicationRules);
    const destinations = unique(strings(rules.map((rule) => rule.destinationBucketId)));
    if (destinations.length > 0) parts.push(`replicating to ${listed('destination buckets', destinations, show)}`);
    if (typeof source.sourceApplicationKeyId === 'string') parts.push(`reading with source key ${show(source.sourceApplicationKeyId)}`);
    if (rules.some((rule) => rule.includeExistingFiles === true)) parts.push('copying existing files too');
  }
  const destination = configuration.asReplicationDestination;
  if (isRecord(destination) && isRecord(destination.sourceToDestinationKeyMapping)) {
    const sources = Object.keys(destination.sourceToDestinationKeyMapping);
    if (sources.length > 0) parts.push(`accepting replicas written by ${listed('source keys', sources, show)}`);
  }
  return parts;
}

/** `b2_create_key`: every capability, the risky ones explained, and how far the key reaches. */
function newKeyReach(args: ToolArgs, show: Show): string[] {
  if (!Array.isArray(args.capabilities)) return [];
  const capabilities = strings(args.capabilities);
  const parts = [listed('capabilities', capabilities, show)];
  const risky = capabilities.filter((c): c is keyof typeof KEY_CAPABILITY_RISKS => Object.hasOwn(KEY_CAPABILITY_RISKS, c));
  if (risky.length > 0) parts.push(`RISKY [${risky.map((c) => `${c}: ${KEY_CAPABILITY_RISKS[c]}`).join('; ')}]`);
  const buckets = strings(args.bucketIds);
  parts.push(buckets.length > 0 ? `only ${listed('buckets', buckets, show)}` : 'EVERY bucket of the account (unscoped)');
  parts.push(
    typeof args.namePrefix === 'string' && args.namePrefix !== '' ? `only file names starting ${show(args.namePrefix)}` : 'every file name',
  );
  parts.push(typeof args.validDurationInSeconds === 'number' ? `expiring after ${args.validDurationInSeconds} seconds` : 'never expiring');
  return parts;
}

export function describeDestinations(args: ToolArgs, show: Show): string[] {
  return [...webhookEndpoints(args, show), ...replicationPeers(args, show), ...newKeyReach(args, show)];
}
