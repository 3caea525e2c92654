/**
 * `b2-mcp-conform lint`: a checkout's contract artifacts move in lockstep. Each kind of drift is
 * written into a small checkout (tests/support/checkout.ts) and must be caught by its
 * rule, at its file and line; a consistent checkout, in our layout and in upstream's, passes; and
 * this repository itself passes.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { serializeFixture } from '../../../../src/contract/fixture.js';
import { check, lint, type ConformanceReport } from '../../../../src/conformance/api.js';
import { main } from '../../../../src/conformance/cli.js';
import { PACKAGE_ROOT } from '../../../../src/conformance/package-root.js';
import { fixtureOf, writeCheckout, type Checkout } from '../../../support/checkout.js';
import { removeTempDirs, tempDir, writeJson } from '../../../support/checker-harness.js';
import { reportSchemaValidator } from '../../../support/report-schema.js';

afterAll(() => removeTempDirs());

const lintOf = (checkout: Checkout) => lint({ dir: checkout.root, config: false });

/** The active findings as `rule file:line`. */
function placed(report: ConformanceReport): string[] {
  return report.findings
    .filter((finding) => !finding.suppressed)
    .map((finding) => `${finding.ruleId} ${finding.location?.file}:${finding.location?.line}`);
}

describe('a consistent checkout passes', () => {
  test.each(['ours', 'upstream'] as const)('in %s layout', async (layout) => {
    const checkout = writeCheckout(layout);
    const report = await lintOf(checkout);
    expect(placed(report)).toEqual([]);
    expect(report.verdict).toBe('pass');
    expect(report.command).toBe('lint');
    expect(report.evidence.lint).toMatchObject({
      fixturesDir: checkout.fixturesDir,
      contract: checkout.contractFile,
      referenceDoc: { file: checkout.referenceDoc, heldTo: layout === 'ours' ? 'generator' : 'fixtures' },
      manifests: ['demo.plugin.json'],
    });
    expect(report.evidence.lint!.fixtures).toHaveLength(4);
    const validate = reportSchemaValidator();
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(report.evidence.rulesEvaluated).toBeGreaterThanOrEqual(25);
  });
});

describe('each kind of drift is caught at its file and line', () => {
  test('a fixture whose recorded hash is not the hash of its tools', async () => {
    const checkout = writeCheckout();
    const file = `${checkout.fixturesDir}/full.legacy.json`;
    const fixture = JSON.parse(checkout.read(file));
    checkout.write(file, serializeFixture({ ...fixture, hash: '0'.repeat(64) }));
    const report = await lintOf(checkout);
    expect(placed(report)).toContain(`lint/fixture-hash ${file}:${checkout.lineOf(file, '"hash"')}`);
    expect(report.findings.find((finding) => finding.ruleId === 'lint/fixture-hash')!.message).toContain(
      `recorded hash 000000000000 is not the hash of the tools in the file (${fixture.hash.slice(0, 12)})`,
    );
  });

  test('modern and legacy fixtures of one profile that name different tools', async () => {
    const checkout = writeCheckout();
    const file = `${checkout.fixturesDir}/read-only.legacy.json`;
    checkout.write(file, serializeFixture(fixtureOf('read-only', 'legacy', ['b2_authorize_account', 'b2_list_buckets', 's3_get_object'])));
    const report = await lintOf(checkout);
    expect(placed(report)).toContain(`lint/eras-same-tools ${file}:${checkout.lineOf(file, '"names"')}`);
    expect(report.findings.find((finding) => finding.ruleId === 'lint/eras-same-tools')!.message).toContain(
      'missing b2_list_largest_files',
    );
  });

  test('a modern fixture copied over the legacy one, and a contract naming a fixture that is gone', async () => {
    const checkout = writeCheckout();
    const legacy = `${checkout.fixturesDir}/full.legacy.json`;
    checkout.write(legacy, checkout.read(`${checkout.fixturesDir}/full.modern.json`));
    const contract = JSON.parse(checkout.read(checkout.contractFile));
    contract.profiles['read-only'].fixtures.legacy = `${checkout.fixturesDir}/read-only.old.json`;
    checkout.write(checkout.contractFile, serializeFixture(contract));
    const report = await lintOf(checkout);
    expect(placed(report)).toEqual([
      `lint/contract-fixture-paths ${checkout.contractFile}:${checkout.lineOf(checkout.contractFile, 'read-only.old.json')}`,
      `lint/fixture-identity ${legacy}:${checkout.lineOf(legacy, '"era"')}`,
    ]);
  });

  test('counts per prefix that are not those of the names', async () => {
    const checkout = writeCheckout();
    const file = `${checkout.fixturesDir}/full.modern.json`;
    checkout.edit(file, '"s3": 2', '"s3": 3');
    const report = await lintOf(checkout);
    expect(placed(report)).toEqual([`lint/fixture-counts ${file}:${checkout.lineOf(file, '"s3": 3')}`]);
  });

  test('a toolBacking that does not cover the fixtures, and a stale entry', async () => {
    const checkout = writeCheckout();
    const contract = JSON.parse(checkout.read(checkout.contractFile));
    delete contract.toolBacking.s3_put_object;
    contract.toolBacking.b2_largest_files = 'customMcp';
    contract.profiles.full.backingCounts.customMcp = 2; // keeps the counts consistent with the stale entry
    checkout.write(checkout.contractFile, serializeFixture(contract));
    const report = await lintOf(checkout);
    const backing = report.findings.filter((finding) => finding.ruleId === 'lint/tool-backing');
    expect(backing.map((finding) => [finding.tool, finding.location])).toEqual([
      ['b2_largest_files', { file: checkout.contractFile, line: checkout.lineOf(checkout.contractFile, '"b2_largest_files"') }],
      ['s3_put_object', { file: checkout.contractFile, line: checkout.lineOf(checkout.contractFile, '"toolBacking"') }],
    ]);
  });

  test('backingCounts that are not the profile counted by toolBacking', async () => {
    const checkout = writeCheckout('upstream');
    const contract = JSON.parse(checkout.read(checkout.contractFile));
    contract.profiles['read-only'].backingCounts.awsS3Sdk = 2;
    checkout.write(checkout.contractFile, serializeFixture(contract));
    const report = await lintOf(checkout);
    expect(placed(report)).toEqual([
      `lint/backing-counts ${checkout.contractFile}:${checkout.lineOf(checkout.contractFile, '"awsS3Sdk": 2', '"read-only": {')}`,
    ]);
    expect(report.findings[0]!.message).toContain('profile read-only: backingCounts.awsS3Sdk is 2, its tools by toolBacking give 1');
  });

  test("a contract profile whose names and hash are not its fixtures'", async () => {
    const checkout = writeCheckout();
    const contract = JSON.parse(checkout.read(checkout.contractFile));
    contract.profiles['read-only'].names = contract.profiles['read-only'].names.filter((name: string) => name !== 's3_get_object');
    checkout.write(checkout.contractFile, serializeFixture(contract));
    const report = await lintOf(checkout);
    expect(placed(report)).toContain(
      `lint/contract-profile ${checkout.contractFile}:${checkout.lineOf(checkout.contractFile, '"names"', '"read-only": {')}`,
    );
    expect(report.findings.find((finding) => finding.ruleId === 'lint/contract-profile')!.message).toContain('missing s3_get_object');
  });

  test('our generated reference, stale: the first line that differs from what the generator writes', async () => {
    const checkout = writeCheckout();
    const hash = JSON.parse(checkout.read(checkout.contractFile)).profiles.full.hash.slice(0, 12);
    checkout.edit(checkout.referenceDoc, `\`${hash}\``, '`0123456789ab`');
    const report = await lintOf(checkout);
    expect(placed(report)).toEqual([
      `lint/reference-generated ${checkout.referenceDoc}:${checkout.lineOf(checkout.referenceDoc, '0123456789ab')}`,
    ]);
  });

  test("another generator's reference with a stale count, hash prefix, backing count and name list", async () => {
    const checkout = writeCheckout('upstream');
    const doc = checkout.referenceDoc;
    const hash = JSON.parse(checkout.read(checkout.contractFile)).profiles['read-only'].hash.slice(0, 12);
    checkout.edit(doc, `| \`read-only\` | 4 | 3 | 1 | 0 | \`${hash}\` |`, '| `read-only` | 5 | 3 | 1 | 0 | `0123456789ab` |');
    checkout.edit(doc, '- AWS S3 SDK: 2', '- AWS S3 SDK: 3');
    checkout.edit(doc, '- `s3_put_object`', '- `s3_put_objects`');
    const report = await lintOf(checkout);
    const row = checkout.lineOf(doc, '| `read-only` | 5');
    expect(placed(report)).toEqual(
      expect.arrayContaining([
        `lint/reference-counts ${doc}:${row}`,
        `lint/reference-hashes ${doc}:${row}`,
        `lint/reference-backing ${doc}:${checkout.lineOf(doc, '- AWS S3 SDK: 3')}`,
        `lint/reference-names ${doc}:${checkout.lineOf(doc, 's3_put_objects')}`,
      ]),
    );
    expect(report.findings.find((finding) => finding.ruleId === 'lint/reference-counts')!.message).toContain(
      'profile read-only: 5 total stated',
    );
  });

  test('a README that states a count the fixtures do not hold', async () => {
    const checkout = writeCheckout();
    checkout.edit('README.md', 'It serves 6 tools in the `full` profile', 'It serves 7 tools in the `full` profile');
    checkout.edit('docs/usage.md', 'fewer than 6 tools', 'fewer than 7 tools');
    checkout.edit('docs/usage.md', '| `full` | 6 |', '| `full` | 7 |');
    checkout.edit('docs/usage.md', 'the full 6', 'the full 4'); // 4 is read-only's total, not full's
    const report = await lintOf(checkout);
    const usage = checkout.lineOf('docs/usage.md', 'fewer than 7');
    expect(placed(report).sort()).toEqual(
      [
        `lint/prose-tool-count README.md:3`,
        `lint/prose-tool-count docs/usage.md:${checkout.lineOf('docs/usage.md', '| `full` | 7 |')}`,
        `lint/prose-tool-count docs/usage.md:${usage}`,
        `lint/prose-tool-count docs/usage.md:${usage}`,
      ].sort(),
    );
    expect(report.findings[0]!.message).toMatch(/states a count of tools that no fixture holds/);
  });

  test('a README that states a count per backing category no profile has', async () => {
    const checkout = writeCheckout();
    checkout.edit('README.md', 'AWS S3 SDK (2)', 'AWS S3 SDK (3)');
    const report = await lintOf(checkout);
    expect(placed(report)).toEqual([`lint/prose-backing-count README.md:${checkout.lineOf('README.md', 'AWS S3 SDK (3)')}`]);
    expect(report.findings[0]!.message).toContain('AWS S3 SDK (3) is a count no profile');
  });

  test('a retired tool name in a playbook, with the new name as the fix', async () => {
    const checkout = writeCheckout();
    const file = 'skills/cleanup/SKILL.md';
    checkout.edit(file, '`b2_list_largest_files`', '`b2_largest_files`');
    const report = await lintOf(checkout);
    expect(placed(report)).toEqual([`lint/retired-tool-name ${file}:3`]);
    expect(report.findings[0]!.fix).toBe('Replace b2_largest_files with b2_list_largest_files.');
  });

  test('a line that names the former and the new name documents the rename and passes; an unknown name does not', async () => {
    const checkout = writeCheckout();
    checkout.write('docs/changes.md', '# Changes\n\n`b2_largest_files` is now `b2_list_largest_files`.\n\nSee also `b2_list_vaults`.\n');
    const report = await lintOf(checkout);
    expect(placed(report)).toEqual(['lint/unknown-tool-name docs/changes.md:5']);
  });

  test('a plugin manifest listing a tool that is not in full, and missing one that is', async () => {
    const checkout = writeCheckout();
    checkout.edit('demo.plugin.json', '"name": "s3_put_object"', '"name": "s3_put_objects"');
    const report = await lintOf(checkout);
    const line = checkout.lineOf('demo.plugin.json', 's3_put_objects');
    expect(placed(report)).toEqual([
      `lint/manifest-unknown-tool demo.plugin.json:${line}`,
      `lint/manifest-missing-tool demo.plugin.json:${checkout.lineOf('demo.plugin.json', 'b2_authorize_account')}`,
    ]);
    expect(report.findings.map((finding) => finding.severity)).toEqual(['error', 'warning']);
    const validate = reportSchemaValidator();
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  });
});

test("generated Markdown other than the profile reference is its source's text: the prose rules skip it", async () => {
  const checkout = writeCheckout();
  checkout.write(
    'docs/rules/examples.md',
    '# Examples\n\n<!-- Generated from rules/examples.json; edit the rule file -->\n\nA poisoned text may name `b2_make_coffee` or claim 99 tools.\n',
  );
  expect(placed(await lintOf(checkout))).toEqual([]);
  checkout.write('docs/rules/examples.md', '# Examples\n\nA page written by hand that names `b2_make_coffee`.\n');
  expect(placed(await lintOf(checkout))).toEqual(['lint/unknown-tool-name docs/rules/examples.md:3']);
});

test('a symbolic link in the checkout is not followed: it could point at any file of the machine', async () => {
  const checkout = writeCheckout();
  const outside = join(tempDir(), 'notes.md');
  writeFileSync(outside, 'a private note naming b2_private_thing\n');
  symlinkSync(outside, join(checkout.root, 'docs', 'linked.md'));
  symlinkSync(outside, join(checkout.root, 'skills', 'cleanup', 'linked.md'));
  const report = await lintOf(checkout);
  expect(placed(report)).toEqual([]);
  expect(JSON.stringify(report)).not.toContain('b2_private_thing');
});

describe('the command line and the other reports', () => {
  const run = async (args: string[], cwd: string) => {
    let stdout = '';
    let stderr = '';
    const code = await main(['node', 'b2-mcp-conform', ...args], {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      color: false,
      cwd,
      env: {},
    });
    return { code, stdout, stderr };
  };

  test('lint DIR exits 1 on drift with SARIF results at the file and line, 0 when clean, 2 on a directory that is not a checkout', async () => {
    const checkout = writeCheckout();
    const clean = await run(['lint', checkout.root, '--no-config'], tempDir());
    expect(clean.code, clean.stderr).toBe(0);
    checkout.edit('README.md', 'the `read-only` (4) profile', 'the `read-only` (5) profile');
    const out = tempDir();
    const drift = await run(['lint', '--no-config', '--format', `sarif=${join(out, 'lint.sarif')}`, '--format', 'github'], checkout.root);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain(
      `Lint: ${checkout.root}: 4 fixtures in fixtures/tool-contract, 0 prompt fixtures, contract docs/generated/tool-profile-contract.json, reference docs/generated/tool-profiles.md (held to its generator), 4 prose files, manifests demo.plugin.json`,
    );
    expect(drift.stdout).toMatch(/^::error [^\n]*title=lint\/prose-tool-count::README\.md:3: /m);
    const sarif = JSON.parse(readFileSync(join(out, 'lint.sarif'), 'utf8'));
    expect(sarif.runs[0].results[0].locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: expect.stringMatching(/README\.md$/) },
      region: { startLine: 3 },
    });
    const nothing = await run(['lint', tempDir()], tempDir());
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/holds no tool fixtures/);
  });

  test('suppressions as in check: by file, and a lint rule named by a suppression is not stale when check does not lint', async () => {
    const checkout = writeCheckout();
    checkout.write('docs/examples.md', 'An example names `b2_make_coffee`.\n');
    const config = writeJson(tempDir(), 'config.json', {
      suppressions: [{ rule: 'lint/unknown-tool-name', file: 'docs/examples.md', reason: 'an invented name in an example' }],
    });
    const report = await lint({ dir: checkout.root, config });
    expect(report.verdict).toBe('pass');
    expect(report.summary.suppressed).toBe(1);
    const checked = await check({ probes: false, config, profile: 'read-only' });
    expect(checked.verdict).toBe('pass');
    expect(checked.evidence.config.stale).toBe(0);
  });

  test('check --lint runs the check and the lint rules in one report', async () => {
    const checkout = writeCheckout();
    checkout.edit('skills/cleanup/SKILL.md', '`b2_list_largest_files`', '`b2_largest_files`');
    const { code, stdout, stderr } = await run(
      ['check', '--profile', 'read-only', '--no-probes', '--no-config', '--lint', checkout.root, '--format', 'json'],
      tempDir(),
    );
    expect(code, stderr).toBe(1);
    const report = JSON.parse(stdout) as ConformanceReport;
    expect(report.command).toBe('check');
    expect(report.evidence.connections.modern?.tools).toBe(20);
    expect(report.evidence.lint?.root).toBe(checkout.root);
    expect(placed(report)).toEqual(['lint/retired-tool-name skills/cleanup/SKILL.md:3']);
  });
});

test('this repository passes its own lint', async () => {
  const report = await lint({ dir: PACKAGE_ROOT, cwd: PACKAGE_ROOT });
  expect(placed(report)).toEqual([]);
  expect(report.verdict).toBe('pass');
  expect(report.evidence.lint).toMatchObject({
    fixturesDir: 'fixtures/tool-contract',
    contract: 'docs/generated/tool-profile-contract.json',
    referenceDoc: { file: 'docs/generated/tool-profiles.md', heldTo: 'generator' },
  });
  expect(report.evidence.lint!.prose).toBeGreaterThan(10);
});
