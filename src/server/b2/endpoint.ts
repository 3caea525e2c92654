/**
 * Which B2 endpoint URLs the client will talk to: `https://` anywhere, plain `http://` only on a
 * loopback host (the local sandbox). Applies to `B2_API_URL` and to every URL that
 * `b2_authorize_account` hands back (apiUrl, downloadUrl, s3ApiUrl, groupsApiUrl).
 */
import { isIP } from 'node:net';
import { B2ConfigError } from './errors.js';

export const DEFAULT_B2_API_URL = 'https://api.backblazeb2.com';

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** The URL without a trailing slash, or a `B2ConfigError` naming what is wrong with it. */
export function checkEndpoint(raw: string, what: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new B2ConfigError(`${what} is not a valid URL`);
  }
  if (url.username || url.password) throw new B2ConfigError(`${what} must not contain credentials`);
  if (url.search || url.hash) throw new B2ConfigError(`${what} must not have a query or fragment`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new B2ConfigError(`${what} must use https:// (plain http:// is accepted only for loopback hosts): ${url.origin}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new B2ConfigError(`${what} must be an http(s) URL`);
  return url.toString().replace(/\/+$/, '');
}
