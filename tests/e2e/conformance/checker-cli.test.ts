import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { colorWanted, crashReport } from '../../../src/conformance/cli.js';
import { ChildStdioTransport } from '../../../src/conformance/connect/stdio-transport.js';
import { baselineSurface } from '../../support/baseline.js';
import {
  SERVERS_DIR,
  mutate,
  removeTempDirs,
  runCli,
  snapshotFixtures,
  startSurfaceHttp,
  tempDir,
  writeContract,
  writeJson,
  type SurfaceHttpServer,
} from '../../support/checker-harness.js';

const run = (...args: string[]) => runCli(args);

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const script = (name: string) => `"${process.execPath}" "${join(SERVERS_DIR, name)}"`;

/** One clear line on stderr, no stack trace. */
function expectOneLine(outcome: Outcome, pattern: RegExp): void {
  const lines = outcome.stderr.trimEnd().split('\n');
  expect(lines, outcome.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(outcome.stderr).not.toMatch(/^\s+at /m);
}

let server: SurfaceHttpServer;
let fixtures: string;
let contract: string;

beforeAll(async () => {
  server = await startSurfaceHttp({
    baseline: baselineSurface(),
    renamed: mutate(baselineSurface(), (s) => void (s.tools[1]!.name = 'b2_bucket_delete')),
    empty: { ...baselineSurface(), tools: [] },
  });
  fixtures = await snapshotFixtures(server.target('baseline'));
  contract = writeContract(fixtures);
});

afterAll(() => {
  server?.stop();
  removeTempDirs();
});

const urlOf = (name: string) => (server.target(name) as { url: URL }).url.href;
const against = (name: string) => ['check', '--url', urlOf(name), '--fixtures', fixtures, '--contract', contract];

describe.concurrent('exit codes', () => {
  test('0: a conforming server', async () => {
    const outcome = await run(...against('baseline'));
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/^PASS 0 errors/m);
    expect(outcome.stderr).toBe('');
  });

  test('1: findings at or above --fail-on, with one JSON error line when --format json', async () => {
    const outcome = await run(...against('renamed'), '--format', 'json');
    expect(outcome.code).toBe(1);
    expect(JSON.parse(outcome.stdout).verdict).toBe('fail');
    expectOneLine(outcome, /^\{"error":\{"code":"findings","message":"\d+ findings? at or above --fail-on error"\}\}$/);
  });

  test('1 or 0 depending on --fail-on', async () => {
    const config = writeJson(tempDir(), 'config.json', { rules: { 'naming/verb-first': 'warning', 'diff/tool-renamed': 'warning' } });
    // diff/tool-renamed is an integrity rule: lowering it takes the explicit flag.
    expect((await run(...against('renamed'), '--config', config)).code).toBe(1);
    expect((await run(...against('renamed'), '--config', config, '--allow-integrity-overrides')).code).toBe(0);
    expect((await run(...against('renamed'), '--config', config, '--allow-integrity-overrides', '--fail-on', 'warning')).code).toBe(1);
  });

  test('2: unknown profile (the phase1-default alias is accepted)', async () => {
    expectOneLine(
      await run('check', '--profile', 'everything'),
      /^b2-mcp-conform: error: unknown profile "everything" \(expected full, default, read-only; alias phase1-default = default\)$/,
    );
    const json = await run('check', '--profile', 'everything', '--format', 'json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'usage', message: expect.stringContaining('unknown profile') } });
    const alias = await run(...against('baseline'), '--profile', 'phase1-default');
    expect(alias.code).toBe(0);
  });

  test('2: missing fixtures directory', async () => {
    const outcome = await run('check', '--url', urlOf('baseline'), '--fixtures', '/nonexistent/fixtures', '--contract', contract);
    expect(outcome.code).toBe(2);
    expectOneLine(outcome, /^b2-mcp-conform: error: fixtures directory not found: \/nonexistent\/fixtures$/);
  });

  test('2: usage mistakes', async () => {
    expectOneLine(await run('check', '--server', 'x', '--url', 'http://127.0.0.1:1/mcp'), /use either --server or --url, not both/);
    expectOneLine(await run('check', '--bogus'), /^b2-mcp-conform: error: unknown option '--bogus'/);
    expectOneLine(await run('check', '--format', 'yaml'), /unknown --format "yaml"/);
    expectOneLine(await run('check', '--format', 'json', '--format', 'sarif'), /only one --format can go to stdout/);
    expectOneLine(await run('check', '--timeout', '-5'), /--timeout must be a positive integer/);
    expectOneLine(await run('check', '--url', 'ftp://example.invalid/mcp'), /--url must be http/);
    expect((await run('check', '--bogus')).code).toBe(2);
  });

  test('3: unreachable URL', async () => {
    const port = await closedPort();
    const outcome = await run('check', '--url', `http://127.0.0.1:${port}/mcp`, '--fixtures', fixtures, '--contract', contract);
    expect(outcome.code).toBe(3);
    expectOneLine(
      outcome,
      new RegExp(`^b2-mcp-conform: error: could not connect to http://127\\.0\\.0\\.1:${port}/mcp: connection refused$`),
    );
  });

  test('3: a server that exits at once', async () => {
    const outcome = await run('check', '--server', script('exits-at-once.mjs'), '--fixtures', fixtures, '--contract', contract);
    expect(outcome.code).toBe(3);
    expectOneLine(outcome, /^b2-mcp-conform: error: server exited with code 1 before answering \(stderr: fatal: no configuration found\)$/);
  });

  test('3: a server that prints garbage on stdout', async () => {
    const outcome = await run('check', '--server', script('garbage-stdout.mjs'), '--fixtures', fixtures, '--contract', contract);
    expect(outcome.code).toBe(3);
    expectOneLine(
      outcome,
      /^b2-mcp-conform: error: server wrote non-JSON-RPC output on stdout \("starting chatty server v1 \.\.\."\); stdout must carry protocol frames only$/,
    );
  });

  test('3: a server that never answers times out', async () => {
    // The silent server leaves after 20 s: a checker that waited past --timeout would see it exit
    // (server-exited) instead; the order of those two events is the proof, not a stopwatch.
    const outcome = await run(
      'check',
      '--server',
      `${script('silent.mjs')} 20000`,
      '--fixtures',
      fixtures,
      '--contract',
      contract,
      '--timeout',
      '400',
      '--format',
      'json',
    );
    expect(outcome.code).toBe(3);
    // Whichever connection gives up first is named: over stdio the modern one may be waiting on its server/discover probe.
    expect(JSON.parse(outcome.stderr)).toEqual({
      error: {
        code: 'timeout',
        message: expect.stringMatching(/did not answer (server\/discover on )?the \w+ connection within 400 ms \(--timeout\)/),
      },
    });
  });

  test('3: a command that does not exist', async () => {
    expectOneLine(
      await run('check', '--server', 'no-such-mcp-server --stdio', '--fixtures', fixtures, '--contract', contract),
      /could not start server "no-such-mcp-server": command not found/,
    );
  });

  test('--debug adds the stack trace', async () => {
    const outcome = await run('check', '--server', script('exits-at-once.mjs'), '--fixtures', fixtures, '--contract', contract, '--debug');
    expect(outcome.code).toBe(3);
    expect(outcome.stderr).toMatch(/^\s+at /m);
  });

  test('4: a server with no tools', async () => {
    const outcome = await run(...against('empty'));
    expect(outcome.code).toBe(4);
    expectOneLine(outcome, /the server listed no tools; nothing was tested/);
  });

  test('4: every rule turned off', async () => {
    const { loadRules } = await import('../../../src/conformance/rules/engine.js');
    const off = Object.fromEntries(loadRules().rules.map((rule) => [rule.id, 'off']));
    const outcome = await run(
      ...against('baseline'),
      '--config',
      writeJson(tempDir(), 'config.json', { rules: off }),
      '--allow-integrity-overrides',
    );
    expect(outcome.code).toBe(4);
    expectOneLine(outcome, /nothing was tested/);
  });

  test('4: diff of two directories with no fixture in common', async () => {
    const outcome = await run('diff', fixtures, tempDir());
    expect(outcome.code).toBe(4);
  });
});

describe.concurrent('commands', () => {
  test('several reports in one run, each naming its file', async () => {
    const dir = tempDir();
    const outcome = await run(
      ...against('baseline'),
      `--format=json=${join(dir, 'r.json')}`,
      '--format',
      `sarif=${join(dir, 'r.sarif')}`,
      '--format',
      'pretty',
    );
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/^b2-mcp-conform check/);
    const { readFileSync } = await import('node:fs');
    expect(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')).verdict).toBe('pass');
    expect(JSON.parse(readFileSync(join(dir, 'r.sarif'), 'utf8')).version).toBe('2.1.0');
  });

  test('snapshot writes fixtures that diff as identical to the generator-format ones', async () => {
    const out = tempDir();
    const outcome = await run('snapshot', '--url', urlOf('baseline'), '--out', out);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/wrote .*default\.modern\.json \(9 tools, hash [0-9a-f]{12}\)/);
    const diff = await run('diff', fixtures, out);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toMatch(/No findings/);
  });

  test('rules lists every rule with severity and doc link', async () => {
    const outcome = await run('rules', '--format', 'json');
    const rules = JSON.parse(outcome.stdout) as { id: string; severity: string; doc: string }[];
    expect(rules.length).toBeGreaterThan(50);
    for (const rule of rules) expect(rule.doc).toMatch(/^docs\/rules\/[a-z-]+\.md#/);
    expect((await run('rules')).stdout).toMatch(/^naming\/verb-first\s+error\s+The word after the prefix is an allowed verb$/m);
  });

  test('--version and --help exit 0', async () => {
    expect((await run('--version')).code).toBe(0);
    const help = await run('check', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--fail-on <severity>/);
    // Each default is stated once, in the unit a user would type.
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/read from the server \(default: 16MiB\) --client-info/);
  });
});

describe.concurrent('eras', () => {
  const v1Server = () =>
    `"${process.execPath}" "${join(SERVERS_DIR, 'v1-server.mjs')}" "${writeJson(tempDir(), 'surface.json', baselineSurface())}"`;

  test('a 2025-only server (1.x SDK) gets a report with an era finding, not exit 3 without one', async () => {
    const outcome = await run('check', '--server', v1Server(), '--fixtures', fixtures, '--contract', contract, '--format', 'json');
    expect(outcome.code, outcome.stderr).toBe(1);
    const report = JSON.parse(outcome.stdout) as {
      findings: { ruleId: string; severity: string; message: string }[];
      evidence: { connections: Record<string, unknown> };
    };
    const era = report.findings.filter((finding) => finding.ruleId === 'eras/era-offered');
    expect(era.map((finding) => [finding.severity, finding.message])).toEqual([
      [
        'error',
        'The server does not offer the modern era (MCP 2026-07-28): server does not offer MCP 2026-07-28 (modern era) via server/discover',
      ],
    ]);
    expect(Object.keys(report.evidence.connections).sort()).toEqual(['legacy', 'witness']);
  });

  test('--era modern on a 2025-only server names the cause and the way out, exit 3', async () => {
    const outcome = await run('check', '--server', v1Server(), '--era', 'modern', '--fixtures', fixtures, '--contract', contract);
    expect(outcome.code).toBe(3);
    expectOneLine(outcome, /server does not offer MCP 2026-07-28 \(modern era\) via server\/discover; use --era legacy/);
  });

  test('--era legacy checks it with the 2.x legacy client and the 1.x witness only', async () => {
    const server = v1Server();
    const own = tempDir();
    expect((await run('snapshot', '--server', server, '--era', 'legacy', '--out', own)).code).toBe(0);
    const outcome = await run(
      'check',
      '--server',
      server,
      '--era',
      'legacy',
      '--fixtures',
      own,
      '--contract',
      writeContract(own, () => {}, 'legacy'),
      '--format',
      'json',
    );
    expect(outcome.code, outcome.stderr).toBe(0);
    const report = JSON.parse(outcome.stdout);
    expect(Object.keys(report.evidence.connections).sort()).toEqual(['legacy', 'witness']);
    expect(report.evidence.connections.legacy.protocolVersion).toBe('2025-11-25');
  });

  test('--era modern speaks only the modern era', async () => {
    const outcome = await run(...against('baseline'), '--era', 'modern', '--format', 'json');
    expect(outcome.code).toBe(0);
    expect(Object.keys(JSON.parse(outcome.stdout).evidence.connections)).toEqual(['modern']);
  });
});

test('colour: never with NO_COLOR, never when stdout is not a terminal, forced by FORCE_COLOR', () => {
  expect(colorWanted({}, true)).toBe(true);
  expect(colorWanted({ NO_COLOR: '1' }, true)).toBe(false);
  expect(colorWanted({}, false)).toBe(false);
  expect(colorWanted({ FORCE_COLOR: '1' }, false)).toBe(true);
  expect(colorWanted({ FORCE_COLOR: '1', NO_COLOR: '1' }, true)).toBe(false);
});

test('the compiled bin maps errors to exit codes and flushes its output', async () => {
  const { spawnSync } = await import('node:child_process');
  const { PACKAGE_ROOT } = await import('../../../src/conformance/package-root.js');
  const bin = join(PACKAGE_ROOT, 'dist', 'bin', 'b2-mcp-conform.js');
  const bad = spawnSync(process.execPath, [bin, 'check', '--profile', 'nope', '--format', 'json'], { encoding: 'utf8' });
  expect(bad.status).toBe(2);
  expect(JSON.parse(bad.stderr)).toEqual({ error: { code: 'usage', message: expect.stringContaining('unknown profile "nope"') } });
  const rules = spawnSync(process.execPath, [bin, 'rules', '--format', 'json'], { encoding: 'utf8' });
  expect(rules.status).toBe(0);
  expect(JSON.parse(rules.stdout).length).toBeGreaterThan(50);
});

test('an error thrown outside the run is one terminal-safe line, exit 2; its stack only with --debug', () => {
  const error = new Error('boom \x1b[2J\u202e\nsecond line');
  expect(crashReport(error, ['node', 'b2-mcp-conform', 'check'])).toEqual({
    text: 'b2-mcp-conform: error: boom \\x1b[2J\\u202e (run with --debug for details)\n',
    exitCode: 2,
  });
  expect(JSON.parse(crashReport(error, ['node', 'b2-mcp-conform', 'check', '--format', 'json']).text)).toEqual({
    error: { code: 'internal', message: 'boom \x1b[2J\u202e (run with --debug for details)' },
  });
  const debug = crashReport(error, ['node', 'b2-mcp-conform', 'check', '--debug']).text.split('\n');
  expect(debug[0]).toBe('b2-mcp-conform: error: boom \\x1b[2J\\u202e');
  expect(debug.slice(1).some((line) => /^\s+at /.test(line))).toBe(true);
  expect(debug.join('\n')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/);
});

test('the bin reports a late crash that way too (exit 2, one escaped line), for a thrown error and a rejection', async () => {
  const { spawnSync } = await import('node:child_process');
  const { PACKAGE_ROOT } = await import('../../../src/conformance/package-root.js');
  const cli = join(PACKAGE_ROOT, 'dist', 'src', 'conformance', 'cli.js');
  for (const late of ['setTimeout(() => { throw new Error("late \\x1b[2J") })', 'Promise.reject(new Error("late \\x1b[2J"))']) {
    const script = `import { reportCrashes } from ${JSON.stringify(cli)}; reportCrashes(["node", "b2-mcp-conform", "check"]); ${late};`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect([run.status, run.stderr], late).toEqual([2, 'b2-mcp-conform: error: late \\x1b[2J (run with --debug for details)\n']);
  }
});

test('a client that throws on a message the server sent breaks that connection instead of crashing the run', async () => {
  const transport = new ChildStdioTransport({
    command: process.execPath,
    args: ['-e', 'console.log(JSON.stringify({ jsonrpc: "2.0", method: "notifications/odd" })); setInterval(() => {}, 1000)'],
    env: {},
  });
  transport.onmessage = () => {
    throw new Error('client choked');
  };
  await transport.start();
  await expect(transport.broken).rejects.toThrow('client choked');
  await transport.close();
});
