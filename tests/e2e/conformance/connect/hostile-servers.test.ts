import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { boundedFetch } from '../../../../src/conformance/connect/http-reading.js';
import { openSession } from '../../../../src/conformance/probes/sessions.js';
import {
  ReadBudget,
  ReadLimitError,
  boundMessage,
  nestingDepth,
  parseByteSize,
  type BoundedPart,
} from '../../../../src/conformance/connect/reading-limits.js';
import { httpTarget } from '../../../../src/conformance/connect/target.js';
import { profileHash } from '../../../../src/contract/normalize.js';
import { SERVERS_DIR, removeTempDirs, runCli, tempDir, type CliOutcome } from '../../../support/checker-harness.js';
import { connectionSettings } from '../../../../src/conformance/api.js';

const hostile = (...args: string[]) => `"${process.execPath}" "${join(SERVERS_DIR, 'hostile-stdio.mjs')}" ${args.join(' ')}`;

interface Report {
  findings: { ruleId: string; tool?: string; path?: string; message: string }[];
}

/**
 * A check of a hostile stdio server against the bundled contract: every run must end with a report or one error line.
 * The --timeout leaves a loaded machine ample time, and keeps the checker's own deadline (2 × --timeout + 1 s)
 * inside a test's time: should a connection ever wait instead of failing, the failure says which one.
 */
async function checkStdio(args: string[], ...options: string[]): Promise<CliOutcome & { report?: Report }> {
  const outcome = await runCli([
    'check',
    '--server',
    hostile(...args),
    '--no-probes',
    '--format',
    'json',
    '--timeout',
    '25000',
    ...options,
  ]);
  return outcome.stdout ? { ...outcome, report: JSON.parse(outcome.stdout) as Report } : outcome;
}

function errorOf(outcome: CliOutcome): { code: string; message: string } {
  expect(outcome.stderr.trimEnd().split('\n'), outcome.stderr).toHaveLength(1);
  return (JSON.parse(outcome.stderr) as { error: { code: string; message: string } }).error;
}

/** Each test spawns servers and a full check: on a loaded machine that takes a while. */
const SERVER_TEST_MS = 120_000;

const findingsOf = (report: Report | undefined, ruleId: string) => (report?.findings ?? []).filter((finding) => finding.ruleId === ruleId);

afterAll(() => removeTempDirs());

describe.concurrent('oversized and endless answers end the run with the limit named (exit 3)', { timeout: SERVER_TEST_MS }, () => {
  test('a tools/list line over a lowered --max-message-bytes', async () => {
    const outcome = await checkStdio(['big', '3'], '--max-message-bytes', '1MiB', '--era', 'modern');
    expect(outcome.code).toBe(3);
    expect(errorOf(outcome)).toEqual({
      code: 'protocol',
      message: 'server sent a stdout line larger than the 1 MiB limit (--max-message-bytes); the modern connection stopped reading',
    });
  });

  test('a line that never ends', async () => {
    const outcome = await checkStdio(['endless'], '--max-message-bytes', '2MiB');
    expect(outcome.code).toBe(3);
    expect(errorOf(outcome).message).toMatch(/^server sent a stdout line larger than the 2 MiB limit \(--max-message-bytes\)/);
  });

  test('more tools than one check reads', async () => {
    const outcome = await checkStdio(['many', '10001'], '--era', 'modern');
    expect(outcome.code).toBe(3);
    expect(errorOf(outcome).message).toBe(
      'server sent the tools/list answer (all pages) listing more than 10000 tools, the most one check reads; the modern connection stopped reading',
    );
  });

  test('a list within the bound is read whole and judged', async () => {
    const outcome = await checkStdio(['big', '1'], '--max-message-bytes', '2MiB', '--era', 'modern');
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(findingsOf(outcome.report, 'diff/tool-added').length).toBeGreaterThan(100);
  });

  test('--max-message-bytes takes a positive size only', async () => {
    for (const bad of ['0', '-1', 'lots', '1.5MiB', '3PB']) {
      const outcome = await runCli(['check', '--server', hostile('big', '1'), '--max-message-bytes', bad]);
      expect(outcome.code, bad).toBe(2);
      expect(outcome.stderr).toMatch(/--max-message-bytes must be a positive size in bytes/);
    }
  });
});

describe.concurrent('hostile schemas are findings in a complete report (exit 1)', { timeout: SERVER_TEST_MS }, () => {
  test('700 levels deep: cut on arrival, reported with its real depth', async () => {
    const outcome = await checkStdio(['deep', '700']);
    expect(outcome.code, outcome.stderr).toBe(1);
    const limits = findingsOf(outcome.report, 'schema/limits');
    expect(limits).toEqual([
      expect.objectContaining({
        tool: 'b2_list_deep',
        path: 'inputSchema',
        message: 'Tool b2_list_deep: inputSchema breaks the nesting depth limit (1403, allowed 32)',
      }),
    ]);
    // The stand-in keeps the root keywords: no other schema rule is misled by the cut.
    expect(findingsOf(outcome.report, 'schema/input-root')).toEqual([]);
  });

  test('5,000 properties in one object: within what is judged whole, the property count is named', async () => {
    const outcome = await checkStdio(['wide', '5000'], '--era', 'modern');
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(findingsOf(outcome.report, 'schema/limits').map((finding) => finding.message)).toEqual([
      'Tool b2_list_wide: inputSchema.properties breaks the property count limit (5000, allowed 256)',
    ]);
  });

  test('200,000 properties, each with a backtracking pattern: cut on arrival, one size finding and nothing else about it', async () => {
    const outcome = await checkStdio(['wide', '200000', "'^(a+)+$'"], '--era', 'modern');
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(findingsOf(outcome.report, 'schema/limits').map((finding) => finding.message)).toEqual([
      'Tool b2_list_wide: inputSchema breaks the size (keys and array items) limit (600003, allowed 20000)',
    ]);
    expect((outcome.report?.findings ?? []).filter((finding) => finding.tool === 'b2_list_wide').map((finding) => finding.ruleId)).toEqual([
      'diff/tool-added',
      'schema/limits',
    ]);
  });

  test('8 tools of 6,600 such properties: the first 5 are judged (one backtracking finding each), the parts past 100,000 keys and items are cut', async () => {
    const outcome = await checkStdio(['dense', '8', '6600'], '--era', 'modern');
    expect(outcome.code, outcome.stderr).toBe(1);
    const judged = ['b2_list_dense_0', 'b2_list_dense_1', 'b2_list_dense_2', 'b2_list_dense_3', 'b2_list_dense_4'];
    expect(
      findingsOf(outcome.report, 'schema/pattern-backtracking').map((finding) => [finding.tool, finding.message.split(': ').at(-1)]),
    ).toEqual(judged.map((tool) => [tool, '^(a+)+$ (and 6,599 more places in inputSchema)']));
    const limits = findingsOf(outcome.report, 'schema/limits').map((finding) => finding.message);
    expect(limits.filter((message) => message.includes('property count'))).toHaveLength(5);
    expect(limits.filter((message) => !message.includes('property count'))).toEqual(
      // Each tool: 19,803 in its input schema, 4 in its annotations.
      [5, 6, 7].map(
        (index) =>
          `Tool b2_list_dense_${index}: inputSchema breaks the size of all tools together (keys and array items) limit (${index * 19_807 + 19_803}, allowed 100000)`,
      ),
    );
  });

  test('$ref cycles', async () => {
    const outcome = await checkStdio(['loop'], '--era', 'modern');
    expect(outcome.code, outcome.stderr).toBe(1);
    const cycles = findingsOf(outcome.report, 'schema/limits').map((finding) => finding.path);
    expect(cycles.sort()).toEqual(['inputSchema.$defs.a.$ref', 'inputSchema.$defs.b.$ref', 'inputSchema.properties.first.$ref']);
    expect(findingsOf(outcome.report, 'schema/json-schema-2020')).toEqual([]);
  });

  test('patterns shaped for catastrophic backtracking', async () => {
    const outcome = await checkStdio(['redos'], '--era', 'modern');
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(
      findingsOf(outcome.report, 'schema/pattern-backtracking')
        .map((finding) => finding.path)
        .sort(),
    ).toEqual([
      'inputSchema.patternProperties["^(x+x+)+y$"]',
      'inputSchema.properties.name.pattern',
      'inputSchema.properties.path.pattern',
    ]);
  });
});

describe('properties and tools named after Object.prototype members', { timeout: SERVER_TEST_MS }, () => {
  test('a snapshot keeps them as keys, and a diff names exactly the property that changed', async () => {
    const out = tempDir();
    const snapshot = await runCli(['snapshot', '--server', hostile('proto'), '--era', 'modern', '--out', out]);
    expect(snapshot.code, snapshot.stderr).toBe(0);
    const file = join(out, 'default.modern.json');
    const text = readFileSync(file, 'utf8');
    const fixture = JSON.parse(text) as {
      names: string[];
      requiredFields: Record<string, string[]>;
      tools: { name: string; inputSchema: { properties: Record<string, unknown> } }[];
    };
    expect(fixture.names).toEqual(['__proto__', 'b2_list_proto', 'toString']);
    expect(Object.keys(fixture.requiredFields)).toEqual(['__proto__', 'b2_list_proto', 'toString']);
    const proto = fixture.tools.find((tool) => tool.name === 'b2_list_proto')!;
    expect(Object.keys(proto.inputSchema.properties)).toEqual(['__proto__', 'constructor', 'hasOwnProperty', 'toString']);
    expect(Object.keys((proto.inputSchema.properties.hasOwnProperty as { properties: object }).properties)).toEqual(['__proto__']);

    // The same fixture without `toString` on the after side: exactly that property is reported.
    const edited = tempDir();
    delete proto.inputSchema.properties.toString;
    (fixture as { hash?: string }).hash = profileHash(fixture.names, fixture.tools);
    writeFileSync(join(edited, 'default.modern.json'), JSON.stringify(fixture));
    const outcome = await runCli(['diff', out, edited, '--format', 'json']);
    expect(outcome.stdout, outcome.stderr).not.toBe('');
    const report = JSON.parse(outcome.stdout) as Report;
    expect(report.findings.map((finding) => [finding.ruleId, finding.tool, finding.path])).toEqual([
      ['diff/property-removed', 'b2_list_proto', 'inputSchema.properties.toString'],
    ]);
  });
});

describe.concurrent('a server that exits before answering: its real cause is shown (exit 3)', { timeout: SERVER_TEST_MS }, () => {
  test('the missing module, not the Node.js banner', async () => {
    const outcome = await checkStdio(['missing-module']);
    expect(outcome.code).toBe(3);
    const error = errorOf(outcome);
    expect(error.code).toBe('server-exited');
    expect(error.message).toBe("server exited with code 1 before answering (stderr: Error: Cannot find module '/srv/mcp/dist/server.js')");
  });

  test('terminal controls in its stderr are shown escaped', async () => {
    const outcome = await runCli(['check', '--server', hostile('control-stderr'), '--no-probes']);
    expect(outcome.code).toBe(3);
    expect(outcome.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
    expect(outcome.stderr).toContain('(stderr: Error: bad config \\x1b[2J\\x1b]0;owned\\x07\\u202e done)');
  });

  test('a server that never answers server/discover is a timeout, not a 2025-only server', async () => {
    const outcome = await runCli([
      'check',
      '--server',
      `"${process.execPath}" "${join(SERVERS_DIR, 'silent.mjs')}"`,
      '--era',
      'modern',
      '--timeout',
      '300',
      '--no-probes',
      '--format',
      'json',
    ]);
    expect(outcome.code).toBe(3);
    // Which request runs out first depends on how fast the server boots; either way it is a timeout.
    const error = errorOf(outcome);
    expect(error.code).toBe('timeout');
    expect(error.message).toMatch(
      /^server did not answer (server\/discover on )?the modern connection within 300 ms \(--timeout\); a slow or loaded server needs a larger --timeout$/,
    );
  });
});

describe.concurrent('--url targets that are not what they seem (exit 3)', { timeout: SERVER_TEST_MS }, () => {
  let server: ChildProcess;
  let base: string;

  beforeAll(async () => {
    server = spawn(process.execPath, [join(SERVERS_DIR, 'hostile-http.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('exit', (code) => reject(new Error(`hostile HTTP server exited with ${code}`)));
      createInterface({ input: server.stdout! }).once('line', (line) => resolve(Number(/listening (\d+)/.exec(line)?.[1])));
    });
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(() => void server?.kill());

  const checkUrl = (path: string, ...options: string[]) =>
    runCli(['check', '--url', `${base}/${path}/mcp`, '--no-probes', '--format', 'json', ...options]);

  test('a web page', async () => {
    const outcome = await checkUrl('page');
    expect(outcome.code).toBe(3);
    expect(errorOf(outcome).message).toBe(
      `${base}/page/mcp is not an MCP endpoint: it answered an MCP request with HTTP 200 text/html; charset=utf-8, not JSON or an event stream; check --url`,
    );
  });

  test('a 404 is no MCP endpoint, not a 2025-only server', async () => {
    const outcome = await checkUrl('missing');
    expect(outcome.code).toBe(3);
    expect(errorOf(outcome).message).toBe(
      `${base}/missing/mcp is not an MCP endpoint (HTTP 404 to an MCP request): Not Found; check the path of --url (b2-mcp serves /mcp)`,
    );
  });

  test('a 401 from a headers-mode server names the key headers and --header', async () => {
    const outcome = await checkUrl('keys');
    expect(outcome.code).toBe(3);
    expect(errorOf(outcome).message).toMatch(
      /refused the \w+ connection with HTTP 401 \(credentials required\): .*; a b2-mcp server in headers credential mode needs the B2 key in --header x-b2-mcp-key-id=… and --header x-b2-mcp-key=…$/,
    );
  });

  test('a 401 to keys that were sent says so, and never repeats the key', async () => {
    const canary = 'K005canarySecretValue0001';
    const outcome = await checkUrl('echo-keys', '--header', 'x-b2-mcp-key-id=005keyid', '--header', `x-b2-mcp-key=${canary}`);
    expect(outcome.code).toBe(3);
    expect(errorOf(outcome).message).toMatch(/HTTP 401 .*; the x-b2-mcp-key-id and x-b2-mcp-key headers sent were not accepted$/);
    expect(outcome.stderr).not.toContain(canary);
  });

  test('a redirect to another origin is not followed: the key headers never reach where it points', async () => {
    const canary = 'K005canaryRedirectSecret01';
    const outcome = await checkUrl('redirect', '--header', 'x-b2-mcp-key-id=005keyid', '--header', `x-b2-mcp-key=${canary}`);
    expect(outcome.code).toBe(3);
    const port = new URL(base).port;
    expect(errorOf(outcome).message).toMatch(
      new RegExp(
        `^${base}/redirect/mcp redirected the \\w+ connection \\(HTTP 307\\) to another origin, "http://localhost:${port}/collect/mcp"; MCP clients follow a redirect only within the origin \\(elsewhere it would carry the --header values\\): point --url at the MCP endpoint itself$`,
      ),
    );
    expect(outcome.stderr).not.toContain(canary);
    const seen = (await (await fetch(`${base}/seen/mcp`)).json()) as unknown[];
    expect(seen).toEqual([]);
  });

  test('a probe session reads within the same bounds: an endless answer fails it instead of filling memory', async () => {
    const spec = { name: 'plain', policy: null, outputFormat: null, elicitation: false, identity: 'vscode' } as const;
    const server = { kind: 'url', target: httpTarget(`${base}/endless-json/mcp`, {}) } as const;
    await expect(
      openSession(server, spec, { env: {}, connection: connectionSettings({ timeoutMs: 60_000 }), modern: false }),
    ).rejects.toThrow('an HTTP body exceeds 16 MiB');
    await expect(
      openSession(server, spec, {
        env: {},
        connection: connectionSettings({ timeoutMs: 60_000, maxMessageBytes: 1024 * 1024 }),
        modern: false,
      }),
    ).rejects.toThrow('an HTTP body exceeds 1 MiB');
  });

  test('a JSON body and an SSE event that never end', async () => {
    const json = await checkUrl('endless-json', '--max-message-bytes', '1MiB');
    expect(json.code).toBe(3);
    expect(errorOf(json).message).toMatch(
      /^server sent an HTTP body larger than the 1 MiB limit \(--max-message-bytes\); the \w+ connection stopped reading$/,
    );
    const sse = await checkUrl('endless-sse', '--max-message-bytes', '1MiB');
    expect(sse.code).toBe(3);
    expect(errorOf(sse).message).toMatch(
      /^server sent an SSE event larger than the 1 MiB limit \(--max-message-bytes\); the \w+ connection stopped reading$/,
    );
  });
});

describe('reading limits', () => {
  test('nesting depth is measured without recursion, far past the stack', () => {
    let value: unknown = 'leaf';
    for (let level = 0; level < 100_000; level++) value = [value];
    expect(nestingDepth(value)).toBe(100_000);
    expect(nestingDepth({ a: [{}], b: 1 })).toBe(3);
    expect(nestingDepth(7)).toBe(0);
  });

  test('a tool part too deep is replaced and recorded; any other message too deep is refused', () => {
    let deep: unknown = { type: 'string' };
    for (let level = 0; level < 300; level++) deep = { type: 'object', properties: { child: deep } };
    const message = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        tools: [
          { name: 'b2_deep', inputSchema: { $schema: 'x', ...(deep as object) } },
          { name: 'b2_flat', inputSchema: { type: 'object' } },
        ],
      },
    };
    const bounded: BoundedPart[] = [];
    boundMessage(message, 'a stdout line', bounded);
    expect(bounded).toEqual([{ tool: 'b2_deep', part: 'inputSchema', depth: 601, members: 902 }]);
    expect(message.result.tools[0]!.inputSchema).toEqual({ $schema: 'x', type: 'object', properties: {} });
    expect(() => boundMessage({ jsonrpc: '2.0', id: 2, result: { other: deep } }, 'an SSE event', [])).toThrow(
      new ReadLimitError('nesting', 256, 'an SSE event'),
    );
  });

  test('a tool part with more than 20,000 keys and array items is replaced and recorded, however shallow', () => {
    const wide = (count: number) => ({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, { type: 'string' }])),
    });
    // type, properties, and two members per property: 2 + 2 × 9,999 = 20,000, the most kept.
    const message = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        tools: [
          { name: 'kept', inputSchema: wide(9_999) },
          { name: 'cut', inputSchema: wide(10_000), _meta: { list: Array.from({ length: 20_001 }, () => 0) } },
        ],
      },
    };
    const bounded: BoundedPart[] = [];
    boundMessage(message, 'a stdout line', bounded);
    expect(bounded).toEqual([
      { tool: 'cut', part: 'inputSchema', depth: 3, members: 20_002 },
      { tool: 'cut', part: '_meta', depth: 2, members: 20_002 },
    ]);
    expect(Object.keys(message.result.tools[0]!.inputSchema.properties)).toHaveLength(9_999);
    expect(message.result.tools[1]!.inputSchema).toEqual({ type: 'object', properties: {} });
    expect(message.result.tools[1]!._meta).toEqual({ list: [] });
  });

  test('the tools of one listing hold at most 100,000 keys and items together: parts past that are replaced, across pages', () => {
    const wide = (name: string) => ({
      name,
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(Array.from({ length: 9_999 }, (_, index) => [`p${index}`, { type: 'string' }])),
      },
    });
    const page = (...names: string[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: names.map(wide) } });
    const budget = new ReadBudget(64 * 1024 * 1024);
    budget.beginListing('tools/list');
    budget.accept(page('a', 'b', 'c'), 10, 'a stdout line');
    const second = budget.accept(page('d', 'e', 'f'), 10, 'a stdout line') as {
      result: { tools: { inputSchema: { properties: object } }[] };
    };
    // 20,000 each: a to e make exactly 100,000 and are kept whole; f is past it.
    expect(budget.bounded).toEqual([{ tool: 'f', part: 'inputSchema', depth: 3, members: 20_000, listingMembers: 120_000 }]);
    expect(second.result.tools.map((tool) => Object.keys(tool.inputSchema.properties).length)).toEqual([9_999, 9_999, 0]);
    budget.beginListing('tools/list');
    budget.accept(page('g'), 10, 'a stdout line');
    expect(budget.bounded).toHaveLength(1);
  });

  test('the tools/list answer is bounded across its pages', () => {
    const budget = new ReadBudget(100);
    const page = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    budget.accept(page, 60, 'a stdout line'); // outside a listing: not counted
    budget.beginListing('tools/list');
    budget.accept(page, 60, 'a stdout line');
    expect(() => budget.accept(page, 60, 'a stdout line')).toThrow(/tools\/list answer \(all pages\) exceeds 100 bytes/);
    expect(budget.exceeded?.subject).toBe('listing');
  });

  test('a listing holds at most 10,000 items, prompts as well as tools', () => {
    const budget = new ReadBudget();
    const page = (count: number) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { prompts: Array.from({ length: count }, (_, index) => ({ name: `p${index}` })) } });
    budget.beginListing('prompts/list');
    budget.accept(page(6000), 10, 'a stdout line');
    expect(() => budget.accept(page(4001), 10, 'a stdout line')).toThrow(
      'the prompts/list answer (all pages) lists more than 10000 prompts',
    );
  });

  test('sizes in bytes or binary units', () => {
    expect(parseByteSize('16777216')).toBe(16 * 1024 * 1024);
    expect(parseByteSize('16MiB')).toBe(16 * 1024 * 1024);
    expect(parseByteSize('512k')).toBe(512 * 1024);
    expect(parseByteSize('1g')).toBe(1024 ** 3);
    for (const bad of ['0', '', 'MiB', '1.5m', '-3', '2 TB']) expect(parseByteSize(bad), bad).toBeUndefined();
  });
});

describe('redirects the SDK clients are given', () => {
  const answering = (status: number, location?: string) => async () =>
    new Response(null, { status, headers: location === undefined ? {} : { location } });
  const traceOf = async (status: number, location?: string) => {
    const trace = { odd: [] as { location?: string }[] };
    await boundedFetch(
      new ReadBudget(),
      trace as never,
      answering(status, location) as typeof fetch,
    )('http://127.0.0.1:3000/mcp', { method: 'POST' });
    return trace.odd.map((odd) => odd.location);
  };

  test('only one to another origin is recorded, with where it pointed', async () => {
    expect(await traceOf(307, 'http://localhost:3000/mcp')).toEqual(['http://localhost:3000/mcp']);
    expect(await traceOf(302, 'https://127.0.0.1:3000/mcp')).toEqual(['https://127.0.0.1:3000/mcp']);
    expect(await traceOf(308, 'http://127.0.0.1:3001/mcp')).toEqual(['http://127.0.0.1:3001/mcp']);
    expect(await traceOf(307, 'http://[::1')).toEqual(['http://[::1']);
    // Within the origin the SDK follows it itself: nothing to explain.
    expect(await traceOf(307, '/other/mcp')).toEqual([]);
    expect(await traceOf(301, 'http://127.0.0.1:3000/mcp/')).toEqual([]);
    expect(await traceOf(307)).toEqual([]);
    expect(await traceOf(400, 'http://localhost:3000/mcp')).toEqual([]);
  });
});
