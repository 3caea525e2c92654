import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { judgeScenario, loadScenarios } from '../../../../src/conformance/probes/scenarios.js';
import { removeTempDirs, runCli, tempDir, writeJson } from '../../../support/checker-harness.js';

const HERE = fileURLToPath(new URL('../../../support/generic', import.meta.url));
const scenarioFile = (name: string) => join(HERE, 'scenarios', name);
const server = `"${process.execPath}" "${join(HERE, 'servers', 'raw-2025.mjs')}" "${join(HERE, 'notes-surface.json')}"`;

interface JsonReport {
  findings: { ruleId: string; severity: string; path?: string; message: string }[];
  evidence: { scenarios?: { file?: string; cases: number; failedCases: number; expectations: number; calls: number } };
}

afterAll(removeTempDirs);

describe('check --scenarios', () => {
  let fixtures: string;
  beforeAll(async () => {
    fixtures = tempDir();
    const outcome = await runCli(['snapshot', '--pack', 'generic', '--server', server, '--out', fixtures]);
    expect(outcome.code, outcome.stderr).toBe(0);
  }, 30_000);

  test('passing cases give no finding, each failing one the finding of its expectation', async () => {
    const outcome = await runCli([
      'check',
      '--pack',
      'generic',
      '--server',
      server,
      '--fixtures',
      fixtures,
      '--scenarios',
      scenarioFile('notes.yaml'),
      '--format',
      'json',
    ]);
    expect(outcome.code, outcome.stderr).toBe(1);
    const report = JSON.parse(outcome.stdout) as JsonReport;
    const found = report.findings.map((finding) => `${finding.ruleId} ${finding.message}`).sort();
    expect(found).toEqual([
      'scenario/assertion Scenario wrong value: at /arguments/title, expected "z", found "a"',
      'scenario/golden Scenario golden differs: structuredContent differs from list-golden.json (found {"tool":"list_notes","arguments":{"limit":6}})',
      'scenario/is-error Scenario expected an error: expected isError true, the result has isError false',
    ]);
    expect(report.evidence.scenarios).toEqual({ file: scenarioFile('notes.yaml'), cases: 5, failedCases: 3, expectations: 12, calls: 0 });
  }, 30_000);

  test('a scenario file with only passing cases passes', async () => {
    const file = writeJson(tempDir(), 'pass.json', {
      scenarios: [
        {
          name: 'ok',
          tool: 'list_notes',
          arguments: { limit: 1 },
          expect: { structuredContent: [{ pointer: '/arguments/limit', equals: 1 }] },
        },
      ],
    });
    const outcome = await runCli(['check', '--pack', 'generic', '--server', server, '--fixtures', fixtures, '--scenarios', file]);
    expect(outcome.code, outcome.stderr).toBe(0);
  }, 30_000);

  test('a tool whose output schema is valid only in draft-04 is listed by every client and called, not refused', async () => {
    const notes = JSON.parse(readFileSync(join(HERE, 'notes-surface.json'), 'utf8')) as {
      tools: { name: string; outputSchema?: unknown }[];
    };
    // exclusiveMaximum as a flag: draft-04 only (a draft-07 validator refuses to compile it).
    notes.tools.find((tool) => tool.name === 'list_notes')!.outputSchema = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: {
        tool: { type: 'string' },
        arguments: { type: 'object', properties: { limit: { type: 'integer', maximum: 5, exclusiveMaximum: true } } },
      },
      required: ['tool'],
    };
    const draft04 = `"${process.execPath}" "${join(HERE, 'servers', 'raw-2025.mjs')}" "${writeJson(tempDir(), 'surface.json', notes)}"`;
    const own = tempDir();
    const snapshot = await runCli(['snapshot', '--pack', 'generic', '--server', draft04, '--out', own]);
    expect(snapshot.code, snapshot.stderr).toBe(0);
    const file = writeJson(tempDir(), 'limit.json', {
      scenarios: [
        {
          name: 'limit 4',
          tool: 'list_notes',
          arguments: { limit: 4 },
          expect: { structuredContent: [{ pointer: '/arguments/limit', equals: 4 }] },
        },
      ],
    });
    const outcome = await runCli([
      'check',
      '--pack',
      'generic',
      '--server',
      draft04,
      '--fixtures',
      own,
      '--scenarios',
      file,
      '--format',
      'json',
    ]);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect((JSON.parse(outcome.stdout) as JsonReport).findings).toEqual([]);
  }, 30_000);

  test('--call-tool: a read-only tool whose text block equals structuredContent passes, one whose text differs fails', async () => {
    const args = writeJson(tempDir(), 'args.json', { limit: 2 });
    const same = await runCli([
      'check',
      '--pack',
      'generic',
      '--server',
      server,
      '--fixtures',
      fixtures,
      '--call-tool',
      `list_notes=${args}`,
      '--format',
      'json',
    ]);
    expect(same.code, same.stderr).toBe(0);
    expect((JSON.parse(same.stdout) as JsonReport).evidence.scenarios).toEqual({ cases: 1, failedCases: 0, expectations: 2, calls: 1 });
    const differs = writeJson(tempDir(), 'surface.json', {
      ...(JSON.parse(readFileSync(join(HERE, 'notes-surface.json'), 'utf8')) as object),
      textDiffers: ['list_notes'],
    });
    const other = `"${process.execPath}" "${join(HERE, 'servers', 'raw-2025.mjs')}" "${differs}"`;
    const outcome = await runCli([
      'check',
      '--pack',
      'generic',
      '--server',
      other,
      '--fixtures',
      fixtures,
      '--call-tool',
      'list_notes',
      '--format',
      'json',
    ]);
    expect(outcome.code, outcome.stderr).toBe(1);
    expect((JSON.parse(outcome.stdout) as JsonReport).findings.map((finding) => finding.ruleId)).toEqual(['scenario/text-block-matches']);
  }, 30_000);

  test('--call-tool: the same call with an undeclared argument must be refused', async () => {
    const obeys = writeJson(tempDir(), 'surface.json', {
      ...(JSON.parse(readFileSync(join(HERE, 'notes-surface.json'), 'utf8')) as object),
      acceptsUndeclared: ['list_notes'],
    });
    const other = `"${process.execPath}" "${join(HERE, 'servers', 'raw-2025.mjs')}" "${obeys}"`;
    const outcome = await runCli([
      'check',
      '--pack',
      'generic',
      '--server',
      other,
      '--fixtures',
      fixtures,
      '--call-tool',
      'list_notes',
      '--format',
      'json',
    ]);
    expect(outcome.code, outcome.stderr).toBe(1);
    const findings = (JSON.parse(outcome.stdout) as JsonReport).findings;
    expect(findings.map((finding) => finding.ruleId)).toEqual(['scenario/undeclared-argument-refused']);
    expect(findings[0]!.message).toMatch(/list_notes accepted the undeclared argument \{"force":true\} instead of refusing the call/);
  }, 30_000);

  test('--call-tool refuses a tool that does not declare itself read-only, and one the server does not list', async () => {
    const destructive = await runCli([
      'check',
      '--pack',
      'generic',
      '--server',
      server,
      '--fixtures',
      fixtures,
      '--call-tool',
      'delete_note',
    ]);
    expect(destructive.code).toBe(2);
    expect(destructive.stderr).toMatch(/--call-tool delete_note: the tool does not declare readOnlyHint true/);
    const missing = await runCli(['check', '--pack', 'generic', '--server', server, '--fixtures', fixtures, '--call-tool', 'nope']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--call-tool nope: the server lists no such tool/);
  }, 30_000);

  test.each([
    ['malformed.yaml', /malformed\.yaml:7:16: \/scenarios\/1\/expect\/isError must be boolean/],
    ['bad-syntax.json', /bad-syntax\.json:3:\d+: not valid YAML or JSON/],
  ])('%s is a config error (exit 2) with its location, before any server starts', async (name, pattern) => {
    const outcome = await runCli([
      'check',
      '--pack',
      'generic',
      '--server',
      `"${process.execPath}" -e "process.exit(9)"`,
      '--fixtures',
      fixtures,
      '--scenarios',
      scenarioFile(name),
    ]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(outcome.stderr).toMatch(pattern);
  });

  test('an unknown key and a duplicate name are named with their line', async () => {
    const unknown = writeJson(tempDir(), 'unknown.json', { scenarios: [{ name: 'a', tool: 't', expect: { isErr: true } }] });
    await expect(loadScenarios(unknown)).rejects.toThrow(/unknown\.json:\d+:\d+: \/scenarios\/0\/expect unknown key "isErr"/);
    const twice = writeJson(tempDir(), 'twice.json', {
      scenarios: [
        { name: 'a', tool: 't' },
        { name: 'a', tool: 't' },
      ],
    });
    await expect(loadScenarios(twice)).rejects.toThrow(/scenario name "a" is used twice/);
  });
});

describe('judging one call', () => {
  const scenario = {
    name: 's',
    tool: 't',
    expect: {
      maxLatencyMs: 100,
      structuredContent: [
        { pointer: '/n', type: 'integer' as const },
        { pointer: '/a~1b', exists: true },
      ],
    },
  };
  const result = (structuredContent: unknown) => ({ result: { content: [], structuredContent }, elicitations: [] });
  const failed = (observations: ReturnType<typeof judgeScenario>) =>
    observations.filter((observation) => !observation.passed).map((observation) => observation.aspect);

  test('latency over the budget fails, at the budget passes', () => {
    expect(failed(judgeScenario(scenario, result({ n: 1, 'a/b': 0 }), 101))).toEqual(['scenario.latency']);
    expect(failed(judgeScenario(scenario, result({ n: 1, 'a/b': 0 }), 100))).toEqual([]);
  });

  test('a number that is not an integer, and an escaped pointer key that is missing, fail', () => {
    expect(failed(judgeScenario(scenario, result({ n: 1.5 }), 0))).toEqual(['scenario.assertion', 'scenario.assertion']);
  });

  test('a call without a result is one finding, nothing else is judged', () => {
    expect(
      judgeScenario(scenario, { thrown: 'boom', elicitations: [] }, 0).map((observation) => [observation.aspect, observation.passed]),
    ).toEqual([['scenario.call', false]]);
  });
});

describe('check --scenarios with the b2 pack', () => {
  test('on the bundled server: a met expectation gives no finding, an unmet one its finding', async () => {
    // The bundled server has no key: a B2 call answers missing_credentials, an isError result.
    const file = writeJson(tempDir(), 'b2.json', {
      scenarios: [
        { name: 'no key', tool: 'b2_list_buckets', arguments: {}, expect: { isError: true } },
        { name: 'expects success', tool: 'b2_list_buckets', arguments: {} },
      ],
    });
    const outcome = await runCli(['check', '--profile', 'default', '--no-probes', '--scenarios', file, '--format', 'json']);
    expect(outcome.code, outcome.stderr).toBe(1);
    const report = JSON.parse(outcome.stdout) as JsonReport;
    expect(report.findings.filter((finding) => finding.ruleId.startsWith('scenario/')).map((finding) => finding.message)).toEqual([
      'Scenario expects success: expected isError false, the result has isError true',
    ]);
    expect(report.evidence.scenarios).toEqual({ file, cases: 2, failedCases: 1, expectations: 2, calls: 0 });
  }, 60_000);
});

describe('scenario latency budgets', () => {
  test('a call slower than its budget is a warning; one within it is not', async () => {
    const slow = writeJson(tempDir(), 'surface.json', {
      ...(JSON.parse(readFileSync(join(HERE, 'notes-surface.json'), 'utf8')) as object),
      delayMs: { list_notes: 300 },
    });
    const other = `"${process.execPath}" "${join(HERE, 'servers', 'raw-2025.mjs')}" "${slow}"`;
    const fixtures = tempDir();
    expect((await runCli(['snapshot', '--pack', 'generic', '--server', other, '--out', fixtures])).code).toBe(0);
    const file = writeJson(tempDir(), 'latency.json', {
      scenarios: [
        { name: 'too slow', tool: 'list_notes', arguments: {}, expect: { maxLatencyMs: 50 } },
        { name: 'in time', tool: 'list_notes', arguments: {}, expect: { maxLatencyMs: 20_000 } },
      ],
    });
    const outcome = await runCli([
      'check',
      '--pack',
      'generic',
      '--server',
      other,
      '--fixtures',
      fixtures,
      '--scenarios',
      file,
      '--format',
      'json',
    ]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const findings = (JSON.parse(outcome.stdout) as JsonReport).findings;
    expect(findings.map((finding) => `${finding.ruleId} ${finding.severity}`)).toEqual(['scenario/latency warning']);
    expect(findings[0]!.message).toMatch(/^Scenario too slow: answered in \d+ ms, the budget is 50 ms$/);
  }, 60_000);
});
