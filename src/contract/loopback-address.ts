import ipaddr from 'ipaddr.js';

/**
 * Whether a socket's peer address is loopback: 127.0.0.0/8 or ::1, also when written as an
 * IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, as a dual-stack listener reports IPv4 peers).
 */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}
