import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { removeTempDirs, runCli, SERVERS_DIR, tempDir, writeJson } from '../../../support/checker-harness.js';

/**
 * Every released protocol version a server may choose is spoken by `snapshot` and `check`, and
 * a server's capability-gated tools are part of its surface under the generic pack: each case a
 * small raw JSON-RPC server (versioned-server.mjs) whose versions and gated tools are data.
 */
afterAll(removeTempDirs);

const tool = (name: string, description = `Does ${name}.`) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
  annotations: { readOnlyHint: true },
});
const TOOLS = [tool('echo'), tool('list-roots'), tool('ask-user'), tool('ask-model')];
const GATED = { 'list-roots': 'roots', 'ask-user': 'elicitation', 'ask-model': 'sampling' };

interface Surface {
  versions: string[];
  tools: ReturnType<typeof tool>[];
  gated?: Record<string, string>;
}

const command = (surface: Surface) =>
  `"${process.execPath}" "${join(SERVERS_DIR, 'versioned-server.mjs')}" "${writeJson(tempDir(), 'surface.json', surface)}"`;

interface Report {
  findings: { ruleId: string; severity: string; message: string; tool?: string; path?: string; scopes: string[] }[];
  evidence: { connections: Record<string, { protocolVersion: string }>; comparedConnections?: Record<string, { protocolVersion: string }> };
}

async function snapshot(surface: Surface): Promise<string> {
  const out = tempDir();
  const outcome = await runCli(['snapshot', '--pack', 'generic', '--server', command(surface), '--out', out]);
  expect(outcome.code, outcome.stderr).toBe(0);
  return out;
}

async function check(surface: Surface, fixtures: string, pack = 'generic'): Promise<{ code: number; report: Report; stderr: string }> {
  const outcome = await runCli(['check', '--pack', pack, '--server', command(surface), '--fixtures', fixtures, '--format', 'json']);
  return {
    code: outcome.code,
    report: JSON.parse(outcome.stdout || '{"findings":[],"evidence":{"connections":{}}}') as Report,
    stderr: outcome.stderr,
  };
}

const manifestOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as {
    eras: string[];
    protocolVersions: { accepted: string[]; notAccepted: { version: string; reason: string }[] };
  };
const serious = (report: Report) =>
  report.findings
    .filter((finding) => finding.severity !== 'info')
    .map((finding) => `${finding.ruleId} ${finding.tool ?? ''} ${finding.scopes.join(',')}`);

describe.concurrent('a server that speaks one released protocol version only', () => {
  test.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])(
    '%s: snapshotted and checked at that version, clean',
    async (version) => {
      const surface = { versions: [version], tools: [tool('echo')] };
      const fixtures = await snapshot(surface);
      const manifest = manifestOf(fixtures);
      expect(manifest.eras).toEqual(['legacy']);
      expect(manifest.protocolVersions.accepted).toEqual([version]);
      expect(manifest.protocolVersions.notAccepted.map((entry) => entry.version).sort()).toEqual(
        ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'].filter((other) => other !== version),
      );
      const { code, report, stderr } = await check(surface, fixtures);
      expect(code, stderr).toBe(0);
      expect(serious(report)).toEqual([]);
      expect(report.evidence.connections.legacy!.protocolVersion).toBe(version);
    },
  );
});

describe.concurrent('when no era is accepted, and when a version is dropped', () => {
  test("a server answering only a version no client speaks: exit 3, naming each connection's own cause", async () => {
    const outcome = await runCli([
      'snapshot',
      '--pack',
      'generic',
      '--server',
      command({ versions: ['2024-10-07'], tools: [tool('echo')] }),
      '--out',
      tempDir(),
    ]);
    expect(outcome.code).toBe(3);
    expect(outcome.stderr).toMatch(
      /the server accepted no connection: modern: server does not offer MCP 2026-07-28 \(modern era\) via server\/discover; legacy: server did not accept MCP 2025-11-25 nor any other 2025-era version: Server's protocol version is not supported: 2024-10-07/,
    );
  });

  test('a snapshot manifest whose records were edited into another shape is a usage error naming the part, not an internal one', async () => {
    const surface = { versions: ['2025-11-25'], tools: [tool('echo')] };
    const fixtures = await snapshot(surface);
    const manifest = JSON.parse(readFileSync(join(fixtures, 'snapshot.json'), 'utf8')) as Record<string, unknown>;
    writeJson(fixtures, 'snapshot.json', {
      ...manifest,
      looks: { 'legacy-2025-03-26': { reference: 'legacy', ownTools: 'echo', notShown: [] } },
    });
    const outcome = await runCli(['check', '--pack', 'generic', '--server', command(surface), '--fixtures', fixtures]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(
      /snapshot manifest .*: "looks\.legacy-2025-03-26" is not a look this checker records .*; take the snapshot again/,
    );
  });

  test('a protocol version accepted at the snapshot and not any more is an error naming it', async () => {
    const fixtures = await snapshot({ versions: ['2025-11-25', '2025-06-18'], tools: [tool('echo')] });
    expect(manifestOf(fixtures).protocolVersions.accepted).toEqual(['2025-11-25', '2025-06-18']);
    const { code, report } = await check({ versions: ['2025-11-25'], tools: [tool('echo')] }, fixtures);
    expect(code).toBe(1);
    expect(report.findings.filter((finding) => finding.severity !== 'info').map((finding) => finding.message)).toEqual([
      'The server accepted MCP 2025-06-18 when the snapshot was taken and no longer does: it answered with MCP 2025-11-25',
    ]);
  });
});

describe.concurrent('capability-gated tools under --pack generic', () => {
  const gated: Surface = { versions: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], tools: TOOLS, gated: GATED };

  test('a server that lists tools only to clients declaring roots, elicitation or sampling passes its self-check', async () => {
    const fixtures = await snapshot(gated);
    const { code, report, stderr } = await check(gated, fixtures);
    expect(code, stderr).toBe(0);
    expect(report.findings).toEqual([]);
    expect(Object.keys(report.evidence.comparedConnections ?? {}).sort()).toEqual([
      'legacy-2024-11-05',
      'legacy-2025-03-26',
      'legacy-2025-06-18',
      'legacy-elicitation',
      'legacy-sampling',
    ]);
  });

  test('a tool shown only to sampling clients is compared like any other: a change to it is a classified diff finding for that client', async () => {
    const fixtures = await snapshot(gated);
    const changed = {
      ...gated,
      tools: TOOLS.map((entry) => (entry.name === 'ask-model' ? { ...entry, inputSchema: { type: 'object', properties: {} } } : entry)),
    };
    const { code, report } = await check(changed, fixtures);
    expect(code).toBe(1);
    expect(serious(report)).toEqual(['diff/property-removed ask-model legacy-sampling']);
  });

  test('gating changed (a tool no longer gated) is reported for each client that is now shown it', async () => {
    const fixtures = await snapshot(gated);
    const { report } = await check({ ...gated, gated: { 'list-roots': 'roots', 'ask-user': 'elicitation' } }, fixtures);
    const added = report.findings.filter((finding) => finding.ruleId === 'diff/tool-added' && finding.tool === 'ask-model');
    expect(added.flatMap((finding) => finding.scopes).sort()).toEqual([
      'legacy',
      'legacy-2024-11-05',
      'legacy-2025-03-26',
      'legacy-2025-06-18',
      'legacy-elicitation',
    ]);
  });

  test('two clients that declare the same capabilities shown different surfaces: eras/surface-varies-by-identity', async () => {
    // Told apart by protocol version alone: both looks without capabilities, one at 2024-11-05 that is not shown echo.
    const cloaked = { ...gated, hiddenAt: { '2024-11-05': ['echo'] } };
    const { code, report } = await check(cloaked, await snapshot(cloaked));
    expect(code).toBe(1);
    const varies = report.findings.filter((finding) => finding.ruleId === 'eras/surface-varies-by-identity');
    expect(varies.map((finding) => [finding.severity, finding.scopes])).toEqual([['error', ['legacy-2025-03-26/legacy-2024-11-05']]]);
    expect(varies[0]!.message).toMatch(
      /Zed\/0\.214\.4 \(capabilities: none; protocol 2025-03-26.*Zed\/0\.214\.4 \(capabilities: none; protocol 2024-11-05.*only the first sees echo/,
    );
  });

  test('under --pack b2 the same gating stays an error, naming the capability', async () => {
    const fixtures = await snapshot(gated);
    const outcome = await runCli([
      'check',
      '--pack',
      'b2',
      '--server',
      command(gated),
      '--fixtures',
      fixtures,
      '--era',
      'legacy',
      '--format',
      'json',
    ]);
    const report = JSON.parse(outcome.stdout) as Report;
    const varies = report.findings.filter((finding) => finding.ruleId === 'eras/surface-varies-by-client');
    expect(varies.length).toBeGreaterThan(0);
    expect(varies.map((finding) => finding.severity)).toEqual(varies.map(() => 'error'));
    expect(varies.find((finding) => finding.scopes.includes('legacy/legacy-elicitation'))?.message).toMatch(
      /only the first sees list-roots \(client capabilities: only the first declares roots\)/,
    );
  });
});
