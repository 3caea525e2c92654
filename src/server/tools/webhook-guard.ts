/**
 * The webhook URL guard of `b2_set_bucket_notification_rules`: B2 will call these URLs from its
 * own network, so a rule must name a public https endpoint, never an internal or special-purpose
 * address (contract §2.7).
 *
 * Checks, in order: the URL parses and is written plainly as `https://host[:port]/…`; no user
 * info; not `localhost`/`*.localhost`; an IP literal must be written in canonical dotted or
 * bracketed form (no decimal/hex/octal/short/percent-encoded forms, no IPv6 zone id) and be
 * globally routable; a host name must resolve (2 s budget) only to globally routable addresses.
 *
 * The DNS step takes an injectable resolver: unit tests pass their own to exercise it without a
 * network. Nothing at run time can switch the step off; integration tests use public IP literals,
 * which need no DNS.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { ToolError } from './definition.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const DNS_TIMEOUT_MS = 2_000;

const NON_GLOBAL_IPV4: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];

const NON_GLOBAL_IPV6: ReadonlyArray<[string, number]> = [
  ['::', 128], ['::1', 128], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64],
  ['2001::', 23], ['2001:2::', 48], ['2001:db8::', 32], ['2002::', 16], ['3fff::', 20], ['fc00::', 7],
  ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
];

/** One list per family: a BlockList also matches IPv4 addresses against IPv4-mapped IPv6 rules. */
function blockList(ranges: ReadonlyArray<[string, number]>, family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return list;
}
const nonGlobalV4 = blockList(NON_GLOBAL_IPV4, 'ipv4');
const nonGlobalV6 = blockList(NON_GLOBAL_IPV6, 'ipv6');

/** True when the address is a globally routable unicast address. */
export function isGlobalAddress(address: string): boolean {
  if (isIPv4(address)) return !nonGlobalV4.check(address, 'ipv4');
  if (isIPv6(address)) return !nonGlobalV6.check(address, 'ipv6');
  return false;
}

const systemResolver: HostResolver = async (hostname) => lookup(hostname, { all: true, verbatim: true });

function refuse(url: string, reason: string): ToolError {
  return new ToolError(400, 'invalid_webhook_url', `Webhook URL ${describe(url)} is not allowed: ${reason}.`);
}

/** The URL as far as it is safe to echo: scheme and host only (paths may carry tokens). */
function describe(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return '(unparsable)';
  }
}

/** The host exactly as written between `https://` and the path, without the port. */
function writtenHost(url: string): string | undefined {
  const authority = /^https:\/\/([^/?#\\]*)/i.exec(url)?.[1];
  if (authority === undefined || authority.includes('@')) return undefined;
  if (authority.startsWith('[')) {
    const end = authority.indexOf(']');
    return end < 0 ? undefined : authority.slice(0, end + 1);
  }
  const colon = authority.lastIndexOf(':');
  return colon < 0 ? authority : authority.slice(0, colon);
}

async function resolveWithin(hostname: string, resolver: HostResolver, timeoutMs: number): Promise<ResolvedAddress[] | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([resolver(hostname), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Throws 400 `invalid_webhook_url` unless `url` is a public https endpoint. */
export async function checkWebhookUrl(url: string, options: { resolver?: HostResolver; timeoutMs?: number } = {}): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse(url, 'it is not a valid URL');
  }
  if (parsed.protocol !== 'https:') throw refuse(url, 'only https:// endpoints are accepted');
  if (parsed.username || parsed.password) throw refuse(url, 'it must not contain user info');
  const written = writtenHost(url);
  if (written === undefined) throw refuse(url, 'write it plainly as https://host/path');
  if (written.includes('%')) throw refuse(url, 'the host must not be percent-encoded or carry an IPv6 zone id');

  const hostname = parsed.hostname.replace(/\.$/, '');
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) throw refuse(url, 'localhost is not reachable from B2');

  if (hostname.startsWith('[')) {
    const address = hostname.slice(1, -1);
    if (!isGlobalAddress(address)) throw refuse(url, 'the IPv6 address is not globally routable');
    return;
  }
  if (isIPv4(hostname)) {
    if (written.toLowerCase() !== hostname) throw refuse(url, 'IP addresses must be written as four plain decimal numbers');
    if (!isGlobalAddress(hostname)) throw refuse(url, 'the IPv4 address is not globally routable');
    return;
  }

  let addresses: ResolvedAddress[] | 'timeout';
  try {
    addresses = await resolveWithin(hostname, options.resolver ?? systemResolver, options.timeoutMs ?? DNS_TIMEOUT_MS);
  } catch {
    throw refuse(url, 'its host name does not resolve');
  }
  if (addresses === 'timeout') throw refuse(url, `its host name did not resolve within ${(options.timeoutMs ?? DNS_TIMEOUT_MS) / 1000} s`);
  if (addresses.length === 0) throw refuse(url, 'its host name does not resolve');
  if (addresses.some((entry) => !isGlobalAddress(entry.address))) {
    throw refuse(url, 'its host name resolves to an address that is not globally routable');
  }
}
