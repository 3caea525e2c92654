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
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ToolError } from '../errors.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const DNS_TIMEOUT_MS = 2_000;

/** IPv6 global unicast (2000::/3): everything else — IPv4-compatible `::a.b.c.d`, segment routing, unassigned space — is refused. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * True when the address is a globally routable unicast address, as ipaddr.js classifies it:
 * IPv4 in its `unicast` range; IPv6 `unicast` inside 2000::/3, which leaves out every form that
 * embeds an IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo) as well.
 */
export function isGlobalAddress(address: string): boolean {
  if (isIPv4(address)) return ipaddr.IPv4.parse(address).range() === 'unicast';
  if (!isIPv6(address)) return false;
  const parsed = ipaddr.IPv6.parse(address);
  return parsed.range() === 'unicast' && parsed.match(GLOBAL_UNICAST_V6);
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
