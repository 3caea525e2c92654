/**
 * The DNS-rebinding guard as README's B2_ALLOWED_HOSTS / B2_ALLOWED_ORIGINS rows describe it:
 * an entry without a port matches any port, one with a port only that port; listed origins
 * match exactly; with no list only loopback passes. Guards are built inside each test so every
 * decision made when the guard is created runs under the test that judges it.
 */
import { describe, expect, it } from 'vitest';
import { createHostGuard, type HostAllowlists } from '../../../src/server/transports/host-guard.js';

type Row = [host: string | undefined, origin: string | undefined, allowed: boolean];

const judge = (lists: HostAllowlists, rows: Row[], loopbackHealthProbe = false) => {
  const guard = createHostGuard(lists);
  return rows.map(([host, origin]) => guard({ host, origin, loopbackHealthProbe }));
};
const expected = (rows: Row[]) => rows.map(([, , allowed]) => allowed);

describe('allowed hosts', () => {
  const lists = { allowedHosts: ['mcp.example.com', 'pinned.example.com:8443', '[2001:db8::1]', '[2001:db8::2]:8080'], allowedOrigins: [] };
  const rows: Row[] = [
    ['mcp.example.com', undefined, true],
    ['mcp.example.com:3000', undefined, true],
    ['MCP.Example.COM:3000', undefined, true],
    ['pinned.example.com:8443', undefined, true],
    ['PINNED.example.com:8443', undefined, true],
    ['pinned.example.com', undefined, false],
    ['pinned.example.com:9000', undefined, false],
    ['[2001:db8::1]', undefined, true],
    ['[2001:db8::1]:8080', undefined, true],
    ['[2001:db8::2]:8080', undefined, true],
    ['[2001:db8::2]', undefined, false],
    ['[2001:db8::2]:9090', undefined, false],
    ['evil.example.com', undefined, false],
    ['mcp.example.com.evil.example', undefined, false],
    ['localhost', undefined, false],
    ['127.0.0.1:3000', undefined, false],
    ['', undefined, false],
    [undefined, undefined, false],
    // Without a listed origin, the Origin must name a listed host.
    ['mcp.example.com', 'https://mcp.example.com', true],
    ['mcp.example.com', 'https://mcp.example.com:8443', true],
    ['mcp.example.com', 'https://pinned.example.com:8443', true],
    ['mcp.example.com', 'https://pinned.example.com', false],
    ['mcp.example.com', 'http://localhost:5173', false],
    ['mcp.example.com', 'https://evil.example.com', false],
    ['mcp.example.com', 'null', false],
    ['mcp.example.com', 'file:///etc/passwd', false],
  ];
  it('match as documented', () => {
    expect(judge(lists, rows)).toEqual(expected(rows));
  });
});

describe('no lists: loopback only, Host and Origin alike', () => {
  const lists = { allowedHosts: [], allowedOrigins: [] };
  const rows: Row[] = [
    ['localhost:3000', undefined, true],
    ['127.0.0.1', undefined, true],
    ['[::1]:8080', undefined, true],
    ['mcp.example.com', undefined, false],
    ['localhost:3000', 'http://127.0.0.1:5173', true],
    ['localhost:3000', 'http://localhost', true],
    ['localhost:3000', 'https://mcp.example.com', false],
    ['localhost:3000', 'file:///x', false],
    ['localhost:3000', 'null', false],
    ['mcp.example.com', 'http://localhost', false],
  ];
  it('match as documented', () => {
    expect(judge(lists, rows)).toEqual(expected(rows));
  });
});

describe('only origins listed: any Host (behind a proxy), the Origin exactly', () => {
  const lists = { allowedHosts: [], allowedOrigins: ['https://app.example.com'] };
  const rows: Row[] = [
    ['mcp.internal:8080', undefined, true],
    ['mcp.internal:8080', 'https://app.example.com', true],
    ['localhost', 'https://app.example.com', true],
    ['mcp.internal:8080', 'http://localhost', false],
    ['mcp.internal:8080', 'https://app.example.com:443', false],
    ['', 'https://app.example.com', false],
    [undefined, 'https://app.example.com', false],
  ];
  it('match as documented', () => {
    expect(judge(lists, rows)).toEqual(expected(rows));
  });
});

describe('both lists: the Host must be listed and the Origin listed exactly', () => {
  const lists = { allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://app.example.com'] };
  const rows: Row[] = [
    ['mcp.example.com', 'https://app.example.com', true],
    ['mcp.example.com', undefined, true],
    ['mcp.example.com', 'https://mcp.example.com', false],
    ['other.example.com', 'https://app.example.com', false],
  ];
  it('match as documented', () => {
    expect(judge(lists, rows)).toEqual(expected(rows));
  });
});

describe('a health probe from a loopback peer', () => {
  const lists = { allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://app.example.com'] };
  const rows: Row[] = [
    ['localhost:3000', undefined, true],
    ['127.0.0.1', 'http://localhost:5173', true],
    ['[::1]:3000', 'http://[::1]:5173', true],
    ['localhost', 'https://evil.example.com', false],
    ['localhost', 'null', false],
    ['evil.example.com', undefined, false],
    ['', undefined, false],
    // A listed Host still passes the ordinary way.
    ['mcp.example.com', 'https://app.example.com', true],
  ];
  it('passes only with a loopback Host and a loopback or absent Origin, whatever the lists say', () => {
    expect(judge(lists, rows, true)).toEqual(expected(rows));
  });

  it('is not a probe when the peer is not loopback', () => {
    expect(
      judge(lists, [
        ['localhost:3000', undefined, false],
        ['localhost', 'http://localhost:5173', false],
      ]),
    ).toEqual([false, false]);
  });
});
