import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename, dirname, join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { render, type Format } from '../../../../src/conformance/report/index.js';
import { locate } from '../../../../src/conformance/report/locations.js';
import type { RunResult } from '../../../../src/conformance/report/evidence.js';
import { httpTarget } from '../../../../src/conformance/connect/target.js';
import { baselineSurface } from '../../../support/baseline.js';
import { reportSchemaValidator, schemaValidator } from '../../../support/report-schema.js';
import {
  check,
  mutate,
  propsOf,
  removeTempDirs,
  snapshotFixtures,
  startSurfaceHttp,
  tempDir,
  toolOf,
  writeContract,
  writeJson,
  type SurfaceHttpServer,
} from '../../../support/checker-harness.js';

const SECRET_HEADER = 'Bearer sk-test-0123456789abcdefDEADBEEF';

let server: SurfaceHttpServer;
/** Errors, a warning, an info and a suppressed finding, from one run. */
let result: RunResult;

beforeAll(async () => {
  server = await startSurfaceHttp({
    baseline: baselineSurface(),
    broken: mutate(baselineSurface(), (s) => {
      propsOf(s, 's3_list_objects_v2').maxKeys!.maximum = 500; // breaking diff
      toolOf(s, 'b2_list_buckets').description = 'List buckets.'; // description drift + length warning
      propsOf(s, 's3_put_object').apiKey = { type: 'string' }; // prohibited field
      toolOf(s, 'b2_list_buckets').annotations!.readOnlyHint = false; // toward caution
    }),
  });
  const fixturesDir = await snapshotFixtures(server.target('baseline'));
  const configFile = writeJson(tempDir(), 'config.json', {
    rules: { 'diff/annotation-read-only-withdrawn': 'info', 'description/length': 'warning' },
    suppressions: [
      { rule: 'diff/description-changed', tool: 'b2_list_buckets', reason: 'copy edit reviewed in the PR', expires: '2099-12-31' },
    ],
  });
  const base = server.target('broken') as { url: URL };
  const target = httpTarget(base.url.href, { Authorization: SECRET_HEADER });
  result = await check(target, { fixturesDir, contractFile: writeContract(fixturesDir), configFile });
});

afterAll(() => {
  server?.stop();
  removeTempDirs();
});

const renderAs = (format: Format, failOn: 'error' | 'warning' | 'info' = 'error', color = false) =>
  render(format, result, { failOn, color });

test('the sample run has findings of every severity and a suppressed one', () => {
  const severities = new Set(result.findings.filter((finding) => !finding.suppressed).map((finding) => finding.severity));
  expect([...severities].sort()).toEqual(['error', 'info', 'warning']);
  expect(result.findings.filter((finding) => finding.suppressed).map((finding) => finding.ruleId)).toEqual(['diff/description-changed']);
});

test('JSON matches docs/report.schema.json', () => {
  const validate = reportSchemaValidator();
  const report = JSON.parse(renderAs('json'));
  expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  expect(report.verdict).toBe('fail');
  expect(report.summary.suppressed).toBe(1);
});

test('fingerprints are stable across runs and independent of message wording', async () => {
  const again = await check(httpTarget((server.target('broken') as { url: URL }).url.href, {}), {
    fixturesDir: result.evidence.hashes.modern!.expected.source.replace(/\/default\.modern\.json$/, ''),
    contractFile: writeContract(result.evidence.hashes.modern!.expected.source.replace(/\/default\.modern\.json$/, '')),
  });
  const first = new Map(result.findings.map((finding) => [finding.fingerprint, finding.ruleId]));
  for (const finding of again.findings) {
    if (first.has(finding.fingerprint)) expect(first.get(finding.fingerprint)).toBe(finding.ruleId);
  }
  const shared = again.findings.filter((finding) => first.has(finding.fingerprint));
  expect(shared.length).toBeGreaterThanOrEqual(4);
});

test('SARIF 2.1.0 validates against the code-scanning subset of the spec and references its rules', () => {
  const sarif = JSON.parse(renderAs('sarif'));
  const validate = schemaValidator(new URL('../../../support/sarif-2.1.0-subset.schema.json', import.meta.url).pathname);
  expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
  const run = sarif.runs[0];
  const ids = run.tool.driver.rules.map((rule: { id: string }) => rule.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const entry of run.results) {
    expect(ids[entry.ruleIndex]).toBe(entry.ruleId);
    expect(entry.partialFingerprints['b2McpConform/v1']).toMatch(/^[0-9a-f]{32}$/);
    expect(entry.locations[0].physicalLocation.artifactLocation.uri).not.toMatch(/^\//);
  }
  for (const rule of run.tool.driver.rules) {
    // An absolute URI of the rule's page; without a homepage it is the page inside the installed package.
    expect(rule.helpUri).toMatch(/^(https?|file):\/\/.*\/docs\/rules\/[a-z-]+\.md#[a-z0-9-]+$/);
    if (rule.helpUri.startsWith('file:')) expect(existsSync(fileURLToPath(rule.helpUri.replace(/#.*$/, '')))).toBe(true);
  }
  const suppressed = run.results.filter((entry: { suppressions?: unknown[] }) => entry.suppressions);
  expect(suppressed).toHaveLength(1);
  expect(suppressed[0].suppressions[0]).toEqual({ kind: 'external', justification: 'copy edit reviewed in the PR' });
  const apiKey = run.results.find((entry: { ruleId: string }) => entry.ruleId === 'credentials/prohibited-field');
  expect(apiKey.locations[0].logicalLocations[0].fullyQualifiedName).toBe('s3_put_object.inputSchema.properties.apiKey');
  expect(apiKey.locations[0].physicalLocation.region.startLine).toBeGreaterThan(1);
});

test('JUnit XML parses: one suite per category, one case per rule, failures at or above --fail-on', () => {
  const xml = renderAs('junit');
  expect(XMLValidator.validate(xml)).toBe(true);
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
  const suites = parsed.testsuites.testsuite as {
    name: string;
    tests: string;
    testcase: { name: string; failure?: unknown; skipped?: unknown }[];
  }[];
  const cases = suites.flatMap((suite) => (Array.isArray(suite.testcase) ? suite.testcase : [suite.testcase]));
  expect(cases.length).toBe(result.rules.rules.length);
  const failed = cases
    .filter((entry) => entry.failure)
    .map((entry) => entry.name)
    .sort();
  expect(failed).toEqual(['credentials/prohibited-field', 'diff/bounds-tightened', 'diff/property-added']);
  expect(Number(parsed.testsuites.failures)).toBe(3);
  expect(Number(parsed.testsuites.skipped)).toBe(
    parsed.testsuites.testsuite.reduce((sum: number, suite: { skipped: string }) => sum + Number(suite.skipped), 0),
  );
  expect(Number(parsed.testsuites.skipped)).toBeGreaterThan(0);
  expect(Number(parsed.testsuites.time)).toBeCloseTo(result.evidence.durationMs / 1000, 2);
  for (const suite of parsed.testsuites.testsuite) expect(suite.time).toBeDefined();
  const warningsFail = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(renderAs('junit', 'warning'));
  expect(Number(warningsFail.testsuites.failures)).toBeGreaterThan(3);
});

describe('text reports', () => {
  test('pretty: summary first, findings grouped per tool with rule, path and message, fixes once per rule; colour off', () => {
    const text = renderAs('pretty');
    expect(text).not.toMatch(/\u001b\[/);
    expect(text.indexOf('Summary: ')).toBeLessThan(text.indexOf('✖ s3_put_object'));
    expect(text).toMatch(/^ {2}by class: \d+ breaking, \d+ non-breaking, \d+ info changes; \d+ other findings$/m);
    expect(text).toMatch(/^ {2}by rule: .*credentials\/prohibited-field 1/m);
    expect(text).toMatch(
      /^✖ s3_put_object \(\d+\)\n( {4}.*\n)* {4}✖ credentials\/prohibited-field inputSchema\.properties\.apiKey — Tool s3_put_object declares/m,
    );
    expect(text).toMatch(/^ {2}credentials\/prohibited-field: Remove "apiKey" from s3_put_object/m);
    expect(text).toMatch(/^FAIL /m);
    const verbose = render('pretty', result, { failOn: 'error', color: false, verbose: true });
    expect(verbose).toMatch(/✖ credentials\/prohibited-field inputSchema\.properties\.apiKey \(modern, legacy\)/);
    expect(verbose).toMatch(/fix: Remove "apiKey" from s3_put_object/);
    expect(renderAs('pretty', 'error', true)).toMatch(/\u001b\[/);
  });

  test('markdown is a PR comment: summary, a findings table per tool, fixes and evidence collapsed', () => {
    const text = renderAs('markdown');
    expect(text).toMatch(/^### b2-mcp-conform check · `default`: ❌ fail/);
    expect(text).toMatch(/^\*\*Summary:\*\* \d+ findings: /m);
    expect(text).toMatch(/^#### `s3_put_object` \(\d+\)\n\n\| \| Rule \| Path \| Finding \|$/m);
    expect(text).toMatch(/<details><summary>How to fix<\/summary>/);
    expect(text).toMatch(/<details><summary>Evidence<\/summary>/);
    expect(text).not.toMatch(/more findings? not shown/);
  });

  test('html: one page with the verdict line, the summary, filters and a section per tool', () => {
    const html = renderAs('html');
    const active = result.findings.filter((finding) => !finding.suppressed);
    expect(html).toMatch(/^<!DOCTYPE html>\n<html lang="en">/);
    expect(html).toMatch(/<p class="verdict fail" id="verdict">FAIL \d+ errors?, /);
    expect(html).toContain(`<p id="summary">${active.length} findings: `);
    expect(html.match(/<tr data-severity=/g)).toHaveLength(active.length);
    expect(html).toMatch(/<section data-tool="s3_put_object"><h3><code>s3_put_object<\/code>/);
    for (const severity of ['error', 'warning', 'info']) expect(html).toContain(`data-filter="severity" value="${severity}" checked`);
    expect(html).toMatch(/<h2>Suppressed \(1\)<\/h2>/);
    expect(html).not.toMatch(/\s(src|href|action)=/); // nothing to load or follow
  });

  test('github emits one workflow command per unsuppressed finding, escaped', () => {
    const lines = renderAs('github').split('\n');
    const annotations = lines.filter((line) => /^::(error|warning|notice) /.test(line));
    expect(annotations).toHaveLength(result.findings.filter((finding) => !finding.suppressed).length);
    // The fixtures of this run live outside the working directory, so no file= (GitHub would reject it).
    expect(annotations.find((line) => line.includes('credentials/prohibited-field'))).toMatch(
      /^::error title=credentials\/prohibited-field s3_put_object::Tool s3_put_object declares/,
    );
    for (const line of annotations) expect(line).not.toMatch(/\n/);
  });

  test('from a subdirectory of a repository, locations are relative to the repository root', () => {
    const finding = result.findings.find((candidate) => candidate.ruleId === 'credentials/prohibited-field')!;
    const root = tempDir();
    mkdirSync(join(root, '.git'));
    mkdirSync(join(root, 'fixtures'));
    const copy = join(root, 'fixtures', 'default.modern.json');
    copyFileSync(result.evidence.hashes.modern!.expected.source, copy);
    const moved: RunResult = {
      ...result,
      evidence: {
        ...result.evidence,
        hashes: { modern: { ...result.evidence.hashes.modern!, expected: { ...result.evidence.hashes.modern!.expected, source: copy } } },
      },
    };
    const nested = join(root, 'packages', 'app');
    mkdirSync(nested, { recursive: true });
    expect(locate(finding, moved, nested)?.uri).toBe('fixtures/default.modern.json');
    expect(locate(finding, moved, tempDir())?.uri).toMatch(/^file:\/\/\/.*\/fixtures\/default\.modern\.json$/);
  });

  test('findings are anchored to the fixture line of their tool, relative to the working directory', () => {
    const finding = result.findings.find((candidate) => candidate.ruleId === 'credentials/prohibited-field')!;
    const fixture = result.evidence.hashes.modern!.expected.source;
    const location = locate(finding, result, dirname(dirname(fixture)));
    expect(location?.uri).toBe(`${basename(dirname(fixture))}/default.modern.json`);
    expect(readFileSync(fixture, 'utf8').split('\n')[location!.line - 1]).toContain('"name": "s3_put_object"');
  });

  test('every report carries the evidence block', () => {
    for (const format of ['pretty', 'markdown', 'github', 'junit'] as const) {
      const text = renderAs(format);
      // In Markdown the zero-width space keeps GitHub from reading it as a team mention.
      expect(text, format).toMatch(/@(&#8203;)?modelcontextprotocol\/sdk 1\.32\.2/);
      expect(text, format).toMatch(/Hash modern/);
      expect(text, format).toMatch(/protocol 2026-07-28/);
    }
    const evidence = JSON.parse(renderAs('sarif')).runs[0].properties.evidence;
    expect(Object.keys(evidence.connections).sort()).toEqual(['legacy', 'modern', 'witness']);
  });

  test('no report contains a header or env value given on the command line', () => {
    for (const format of ['pretty', 'json', 'sarif', 'junit', 'markdown', 'github'] as const) {
      expect(renderAs(format), format).not.toContain('sk-test-0123456789');
    }
    expect(result.evidence.target).toMatchObject({ headers: ['Authorization'] });
  });
});
