import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { PROMPT_FIXTURES_DIR, TOOL_FIXTURES_DIR } from '../../../../src/contract/artifact.js';
import { profileHash } from '../../../../src/contract/normalize.js';
import type { PromptFixture } from '../../../../src/contract/prompt-fixture.js';
import { BUNDLED, PACKAGE_ROOT } from '../../../../src/conformance/package-root.js';
import { checkServer } from '../../../../src/conformance/commands/check.js';
import { stdioTarget } from '../../../../src/conformance/connect/target.js';
import { removeTempDirs, runCli, tempDir } from '../../../support/checker-harness.js';
import { reportSchemaValidator } from '../../../support/report-schema.js';
import { connectionSettings } from '../../../../src/conformance/api.js';

/**
 * Our own server with its opt-in prompts switched on: `check` compares them with the bundled
 * prompt fixtures in every era, `snapshot` writes the same prompt fixture the generator wrote, and
 * `diff` between fixture sets in the repository layout sees what a listing cannot show.
 */
const SERVER = `"${process.execPath}" "${BUNDLED.serverEntry}" stdio`;
const serverEnv = (profile: string) => ({ B2_MCP_PROFILE: profile, B2_SECRET_SINK: 'off', B2_ENABLE_MCP_PROMPTS: 'true' });
const bundledPrompts = (profile: string): PromptFixture =>
  JSON.parse(readFileSync(join(PACKAGE_ROOT, PROMPT_FIXTURES_DIR, `${profile}.json`), 'utf8'));

const cli = (...args: string[]) => runCli(args);

const envFlags = (profile: string) => Object.entries(serverEnv(profile)).flatMap(([name, value]) => ['--env', `${name}=${value}`]);

afterAll(removeTempDirs);

test('check --server … --env B2_ENABLE_MCP_PROMPTS=true passes, with the prompts compared in both eras and seen by the witness', async () => {
  const outcome = await cli(
    'check',
    '--profile',
    'full',
    '--server',
    SERVER,
    ...envFlags('full'),
    '--no-probes',
    '--format',
    'json',
    '--timeout',
    '20000',
  );
  expect(outcome.code, outcome.stderr).toBe(0);
  const report = JSON.parse(outcome.stdout);
  const validate = reportSchemaValidator();
  expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  expect(report.findings.filter((finding: { severity: string }) => finding.severity === 'error')).toEqual([]);
  const expected = bundledPrompts('full');
  for (const connection of ['modern', 'legacy', 'witness'])
    expect(report.evidence.connections[connection].prompts).toBe(expected.names.length);
  expect(Object.keys(report.evidence.promptHashes).sort()).toEqual(['legacy', 'modern']);
  for (const comparison of Object.values(report.evidence.promptHashes) as {
    basis: string;
    drift: unknown;
    expected: { source: string };
  }[]) {
    expect(comparison).toMatchObject({
      basis: 'listed',
      drift: { status: 'match' },
      expected: { source: join(PACKAGE_ROOT, PROMPT_FIXTURES_DIR, 'full.json') },
    });
  }
  // The prompts capability in server/discover is judged by the prompt comparison, not as tool drift.
  expect(report.evidence.cacheHints.modern.discover.capabilities).toHaveProperty('prompts');
});

describe.concurrent('every profile lists exactly its fixture prompts', () => {
  for (const profile of ['default', 'read-only']) {
    test(profile, async () => {
      const result = await checkServer({
        profile,
        target: stdioTarget(SERVER, serverEnv(profile)),
        era: 'both',
        connection: connectionSettings({ timeoutMs: 20_000 }),
      });
      expect(result.findings.filter((finding) => finding.severity === 'error')).toEqual([]);
      expect(result.evidence.connections.legacy!.prompts).toBe(bundledPrompts(profile).names.length);
      expect(result.evidence.promptHashes!.modern!.drift).toEqual({ status: 'match' });
    });
  }
});

test('snapshot writes the prompt fixture the generator wrote, and diff against the bundled fixtures finds nothing', async () => {
  const out = tempDir();
  const snapshot = await cli('snapshot', '--profile', 'full', '--server', SERVER, ...envFlags('full'), '--out', out, '--timeout', '20000');
  expect(snapshot.code, snapshot.stderr).toBe(0);
  const expected = bundledPrompts('full');
  expect(snapshot.stdout).toContain(
    `wrote ${join(out, 'full.json')} (${expected.names.length} prompts, hash ${expected.hash.slice(0, 12)})`,
  );
  const written = JSON.parse(readFileSync(join(out, 'full.json'), 'utf8')) as PromptFixture;
  expect(written.prompts).toEqual(expected.prompts);
  expect(written.hash).toBe(expected.hash);

  // The snapshot holds one profile: compare it with that profile's bundled fixtures, laid out as snapshot writes them (other profiles would be removed ones).
  const before = tempDir();
  for (const era of ['modern', 'legacy'])
    cpSync(join(PACKAGE_ROOT, TOOL_FIXTURES_DIR, `full.${era}.json`), join(before, `full.${era}.json`));
  cpSync(join(PACKAGE_ROOT, PROMPT_FIXTURES_DIR, 'full.json'), join(before, 'full.json'));
  const diff = await cli('diff', before, out, '--format', 'json');
  expect(diff.code, diff.stdout).toBe(0);
  const report = JSON.parse(diff.stdout);
  expect(report.findings).toEqual([]);
  expect(report.evidence.target.promptsCompared).toEqual(['full']);
  expect(report.evidence.promptHashes['full.prompts'].drift).toEqual({ status: 'match' });
});

test('offline diff in the repository layout catches a required tool added to a prompt', async () => {
  const root = tempDir();
  cpSync(join(PACKAGE_ROOT, TOOL_FIXTURES_DIR), join(root, TOOL_FIXTURES_DIR), { recursive: true });
  cpSync(join(PACKAGE_ROOT, PROMPT_FIXTURES_DIR), join(root, PROMPT_FIXTURES_DIR), { recursive: true });
  const file = join(root, PROMPT_FIXTURES_DIR, 'full.json');
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as PromptFixture;
  const audit = fixture.prompts.find((prompt) => prompt.name === 'b2_audit_public_exposure')!;
  audit.requiredTools = [...audit.requiredTools, 'b2_update_bucket'].sort();
  fixture.requiredTools[audit.name] = audit.requiredTools;
  fixture.hash = profileHash(fixture.names, fixture.prompts, 'prompts');
  writeFileSync(file, `${JSON.stringify(fixture, null, 2)}\n`);

  const outcome = await cli('diff', join(PACKAGE_ROOT, TOOL_FIXTURES_DIR), join(root, TOOL_FIXTURES_DIR), '--format', 'json');
  expect(outcome.code).toBe(1);
  const report = JSON.parse(outcome.stdout);
  expect(
    report.findings.map((finding: { ruleId: string; prompt: string; path: string; severity: string; message: string }) => [
      finding.ruleId,
      finding.prompt,
      finding.path,
      finding.severity,
      finding.message,
    ]),
  ).toEqual([
    [
      'diff/prompt-requirement-added',
      'b2_audit_public_exposure',
      'requiredTools',
      'error',
      'Prompt b2_audit_public_exposure: requiredTools gained b2_update_bucket',
    ],
  ]);
  expect(report.evidence.target.promptsCompared).toEqual(['default', 'full', 'read-only']);
  expect(report.evidence.promptHashes['full.prompts'].expected.source).toBe(join(PACKAGE_ROOT, PROMPT_FIXTURES_DIR, 'full.json'));
});
