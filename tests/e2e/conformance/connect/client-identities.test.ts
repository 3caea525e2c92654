import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import {
  CLIENT_IDENTITIES,
  declinedRequests,
  parseClientInfo,
  presentedIdentity,
} from '../../../../src/conformance/connect/client-identities.js';
import { observe } from '../../../../src/conformance/connect/connect.js';
import { CONNECTIONS_FOR, type ConnectionId } from '../../../../src/conformance/connect/connections.js';
import { ConformError } from '../../../../src/conformance/errors.js';
import { httpTarget, stdioTarget } from '../../../../src/conformance/connect/target.js';
import { SERVERS_DIR, removeTempDirs, tempDir } from '../../../support/checker-harness.js';
import { connectionSettings } from '../../../../src/conformance/api.js';

afterAll(removeTempDirs);

const CHECKER = /b2-mcp-conform/i;

interface Recorded {
  era: string;
  clientInfo: { name: string; version: string };
  capabilities: Record<string, unknown>;
}

async function recordedLooks(connections: readonly ConnectionId[], clientInfo?: { name: string; version: string }[]): Promise<Recorded[]> {
  const file = join(tempDir(), 'who.jsonl');
  const target = stdioTarget(`node ${join(SERVERS_DIR, 'recording-server.mjs')}`, { RECORD_FILE: file });
  await observe(target, { connections, settings: connectionSettings({ timeoutMs: 10_000, ...(clientInfo ? { clientInfo } : {}) }) });
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Recorded);
}

describe('default identities', () => {
  test('no identity names the checker, and they present different clients with different capability sets', () => {
    const identities = Object.values(CLIENT_IDENTITIES);
    for (const identity of identities) expect(JSON.stringify(identity)).not.toMatch(CHECKER);
    expect(new Set(identities.map((identity) => identity.clientInfo.name)).size).toBe(identities.length);
    expect(new Set(identities.map((identity) => JSON.stringify(identity.capabilities))).size).toBeGreaterThanOrEqual(3);
  });

  test('every connection presents as an ordinary client over stdio, never as the checker', async () => {
    const looks = await recordedLooks(CONNECTIONS_FOR.both);
    expect(looks).toHaveLength(CONNECTIONS_FOR.both.length);
    for (const look of looks) expect(JSON.stringify(look)).not.toMatch(CHECKER);
    const modern = looks.find((look) => look.era === 'modern')!;
    expect(modern.clientInfo).toEqual(CLIENT_IDENTITIES.vscode.clientInfo);
    expect(Object.keys(modern.capabilities).sort()).toEqual(['elicitation', 'roots', 'sampling']);
    const names = [...new Set(looks.map((look) => look.clientInfo.name))].sort();
    expect(names).toEqual(['Visual Studio Code', 'Zed', 'claude-ai', 'claude-code', 'cursor-vscode']);
    // Each capability set is presented on its own: none, roots, sampling, elicitation.
    const sets = looks.map((look) => Object.keys(look.capabilities).sort().join('+'));
    for (const set of ['', 'roots', 'sampling', 'elicitation']) expect(sets).toContain(set);
  });

  test('--client-info replaces the names and versions in turn, keeping the capability sets', async () => {
    const looks = await recordedLooks(['modern', 'legacy'], [{ name: 'my-agent', version: '3.2.1' }]);
    expect(looks.map((look) => look.clientInfo)).toEqual([
      { name: 'my-agent', version: '3.2.1' },
      { name: 'my-agent', version: '3.2.1' },
    ]);
    expect(new Set(looks.map((look) => JSON.stringify(look.capabilities))).size).toBe(2);
  });

  test("over HTTP each connection sends its identity's User-Agent, none the checker's", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const target = httpTarget(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, {});
      for (const connection of CONNECTIONS_FOR.both)
        await observe(target, { connections: [connection], settings: connectionSettings({ timeoutMs: 5_000 }) }).catch(() => {});
    } finally {
      server.close();
    }
    const agents = new Set(seen.map((headers) => headers['user-agent']));
    expect([...agents].sort()).toEqual(['claude-code/2.1.76 (cli)', 'node']);
  });
});

describe('parseClientInfo', () => {
  test('splits at the last slash', () => {
    expect(parseClientInfo('claude-code/2.1.76')).toEqual({ name: 'claude-code', version: '2.1.76' });
    expect(parseClientInfo('@scope/agent/1.0')).toEqual({ name: '@scope/agent', version: '1.0' });
  });

  test.each(['claude-code', '/1.0', 'name/', 'a/\u0007'])('rejects %j as a usage error', (text) => {
    expect(() => parseClientInfo(text)).toThrowError(ConformError);
    try {
      parseClientInfo(text);
    } catch (error) {
      expect((error as ConformError).code).toBe('usage');
    }
  });
});

describe('server-to-client requests', () => {
  test('each declared capability is answered as a user who shares nothing and declines', () => {
    const answers = Object.fromEntries(declinedRequests(CLIENT_IDENTITIES.vscode).map(({ method, answer }) => [method, answer]));
    expect(Object.keys(answers).sort()).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
    expect(answers['roots/list']!()).toEqual({ roots: [] });
    expect(answers['elicitation/create']!()).toEqual({ action: 'decline' });
    expect(() => answers['sampling/createMessage']!()).toThrow(/declined/);
    expect(declinedRequests(CLIENT_IDENTITIES.zed)).toEqual([]);
  });

  test("an override keeps the capabilities and drops the identity's own User-Agent", () => {
    const identity = presentedIdentity('claudeCode', 0, [{ name: 'x', version: '1' }]);
    expect(identity.clientInfo).toEqual({ name: 'x', version: '1' });
    expect(identity.capabilities).toEqual(CLIENT_IDENTITIES.claudeCode.capabilities);
    expect(identity.userAgent).toBe('node');
  });
});
