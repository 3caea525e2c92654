/**
 * DNS-rebinding protection: which `Host` and `Origin` headers may reach the server.
 * With no allowlist configured only loopback names pass.
 */

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export interface HostAllowlists {
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

export interface HostCheckInput {
  host: string | undefined;
  origin: string | undefined;
  /** The socket's peer is a loopback address and this is a health probe. */
  loopbackHealthProbe: boolean;
}

/** `example.com:8080` → `example.com`; `[::1]:3000` → `[::1]`. */
function hostnameOf(hostAndPort: string): string {
  if (hostAndPort.startsWith('[')) {
    const end = hostAndPort.indexOf(']');
    return end < 0 ? hostAndPort : hostAndPort.slice(0, end + 1);
  }
  const colon = hostAndPort.indexOf(':');
  return colon < 0 ? hostAndPort : hostAndPort.slice(0, colon);
}

/** An entry with a port must match exactly; one without matches the host on any port. */
function hostListed(hostAndPort: string, allowedHosts: readonly string[]): boolean {
  const value = hostAndPort.toLowerCase();
  // An entry with a port never equals a bare host name, so the second test only ever matches bare entries.
  return allowedHosts.some((entry) => entry === value || entry === hostnameOf(value));
}

const isLoopbackHost = (hostAndPort: string): boolean => LOOPBACK_NAMES.has(hostnameOf(hostAndPort.toLowerCase()));

/** The origin's `host[:port]`, or undefined for an opaque or unparsable origin (`null`, garbage). */
function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.host === '' ? undefined : url.host;
  } catch {
    return undefined;
  }
}

export function createHostGuard(lists: HostAllowlists): (input: HostCheckInput) => boolean {
  const { allowedHosts, allowedOrigins } = lists;

  const hostAllowed = (host: string): boolean => {
    if (allowedHosts.length > 0) return hostListed(host, allowedHosts);
    // Only origins are listed: the deployment sits behind a proxy whose Host we cannot predict.
    return allowedOrigins.length > 0 || isLoopbackHost(host);
  };

  const originAllowed = (origin: string): boolean => {
    if (allowedOrigins.length > 0) return allowedOrigins.includes(origin);
    const host = originHost(origin);
    if (host === undefined) return false;
    return allowedHosts.length > 0 ? hostListed(host, allowedHosts) : isLoopbackHost(host);
  };

  return ({ host, origin, loopbackHealthProbe }) => {
    if (host === undefined || host === '') return false;
    if (loopbackHealthProbe && isLoopbackHost(host) && (origin === undefined || isLoopbackHost(originHost(origin) ?? ''))) return true;
    return hostAllowed(host) && (origin === undefined || originAllowed(origin));
  };
}
