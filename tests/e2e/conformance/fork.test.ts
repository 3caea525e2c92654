import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ContractArtifact } from '../../../src/contract/artifact.js';
import { prefixCounts, type ToolFixture } from '../../../src/contract/fixture.js';
import { profileHash } from '../../../src/contract/normalize.js';
import { bundledEnvironment } from '../../../src/conformance/connect/bundled.js';
import type { Finding } from '../../../src/conformance/rules/findings.js';
import { loadContract } from '../../../src/conformance/diff/fixtures.js';
import { BUNDLED } from '../../../src/conformance/package-root.js';
import { checkServer } from '../../../src/conformance/commands/check.js';
import { diffFixtureDirs } from '../../../src/conformance/commands/diff.js';
import { snapshotServer } from '../../../src/conformance/commands/snapshot.js';
import type { RunResult } from '../../../src/conformance/report/evidence.js';
import { stdioTarget } from '../../../src/conformance/connect/target.js';
import { removeTempDirs, runCli, tempDir } from '../../support/checker-harness.js';
import { connectionSettings } from '../../../src/conformance/api.js';

/**
 * The project's own test fork (fork-server.mjs: our bundled server behind a proxy that applies
 * edits.json) stands in for a real fork such as upstream: the former names of the four renamed
 * tools, reworded descriptions, loosened bounds, and schema edits that change only the spelling.
 */
interface Edits {
  renames: Record<string, string>;
  descriptions: Record<string, string>;
  loosened: { tool: string; path: string[]; value: unknown }[];
  equivalent: { tool: string; path: string[]; value: unknown }[];
}

const FORK_DIR = fileURLToPath(new URL('../../support/fork/', import.meta.url));
const EDITS = JSON.parse(readFileSync(join(FORK_DIR, 'edits.json'), 'utf8')) as Edits;
const forkName = (name: string) => EDITS.renames[name] ?? name;
const forkCommand = `"${process.execPath}" "${join(FORK_DIR, 'fork-server.mjs')}"`;
const forkTarget = (profile: 'full' | 'default') => stdioTarget(forkCommand, bundledEnvironment(profile));
const BUNDLED_CONTRACT = loadContract(BUNDLED.contractFile);

const summary = (findings: readonly Finding[]) =>
  findings.map(({ ruleId, tool, path }) => `${ruleId} ${tool ?? ''} ${path ?? ''}`.trim()).sort();
const errorsBesideDiff = (result: RunResult) =>
  result.findings.filter((finding) => finding.severity === 'error' && !finding.ruleId.startsWith('diff/'));

/** What the fork's edits must produce: one rename each, and exactly the real changes; the respellings nothing. */
function expectedDiffFindings(): string[] {
  return [
    ...Object.values(EDITS.renames).map((name) => `diff/tool-renamed ${name}`),
    ...Object.keys(EDITS.descriptions).map((name) => `diff/description-changed ${forkName(name)} description`),
    ...EDITS.loosened.map(({ tool, path }) => `diff/bounds-loosened ${forkName(tool)} ${['inputSchema', ...path].join('.')}`),
  ].sort();
}

describe('the fork against our contract', () => {
  let result: RunResult;
  beforeAll(async () => {
    result = await checkServer({
      profile: 'phase1-default',
      target: forkTarget('default'),
      era: 'both',
      connection: connectionSettings({ timeoutMs: 20_000 }),
      cwd: tempDir(),
      today: '2026-11-30',
    });
  });

  test('exactly one finding per rename, plus the real changes; respelled schemas add nothing', () => {
    expect(summary(result.findings.filter((finding) => finding.ruleId.startsWith('diff/')))).toEqual(expectedDiffFindings());
    expect(errorsBesideDiff(result)).toEqual([]);
  });

  test('each rename names both names and why it is one', () => {
    const renames = result.findings.filter((finding) => finding.ruleId === 'diff/tool-renamed');
    for (const [current, former] of Object.entries(EDITS.renames)) {
      const finding = renames.find((candidate) => candidate.tool === former)!;
      expect(finding.message).toBe(`Tool ${current} is now ${former} (back to its former name, which the contract retired)`);
      expect(finding.scopes.sort()).toEqual(['legacy', 'modern']);
    }
  });

  test('phase1-default is our default profile under its upstream name', () => {
    expect(result.evidence.profile).toBe('default');
    expect(result.evidence.contract).toEqual({ file: BUNDLED.contractFile, profile: 'default', namingPolicy: 'contract' });
  });
});

/**
 * An upstream-style repository, written here from the fork's own snapshots: fixtures under
 * tests/fixtures/tool-contract/ with the default profile named phase1-default and an extra
 * live-b2-contract profile, and a contract at docs/tool-profile-contract.json without a naming block.
 */
function writeUpstreamLayout(snapshots: Record<'full' | 'default', Record<'modern' | 'legacy', ToolFixture>>): {
  root: string;
  fixturesDir: string;
} {
  const root = tempDir();
  const fixturesDir = join(root, 'tests', 'fixtures', 'tool-contract');
  mkdirSync(fixturesDir, { recursive: true });
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'package.json'), '{ "name": "upstream-like" }\n');
  const dropped = 'b2_delete_key';
  const profiles: Record<string, Record<'modern' | 'legacy', ToolFixture>> = {
    full: snapshots.full,
    'phase1-default': snapshots.default,
    'live-b2-contract': { ...snapshots.full },
  };
  for (const era of ['modern', 'legacy'] as const) {
    const full = snapshots.full[era];
    const names = full.names.filter((name) => name !== dropped);
    const tools = full.tools.filter((tool) => tool.name !== dropped);
    profiles['live-b2-contract']![era] = { ...full, names, tools, counts: prefixCounts(names), hash: profileHash(names, tools) };
  }
  const toolBacking = Object.fromEntries(Object.entries(BUNDLED_CONTRACT.toolBacking).map(([name, backing]) => [forkName(name), backing]));
  const contractProfiles: Record<string, unknown> = {};
  for (const [profile, byEra] of Object.entries(profiles)) {
    for (const era of ['modern', 'legacy'] as const)
      writeFileSync(join(fixturesDir, `${profile}.${era}.json`), `${JSON.stringify({ ...byEra[era], profile }, null, 2)}\n`);
    const { names, counts, requiredFields, confirmTools, hash, capabilities } = byEra.modern;
    const backingCounts: Record<string, number> = { nativeB2Sdk: 0, awsS3Sdk: 0, customMcp: 0 };
    for (const name of names) backingCounts[toolBacking[name]!]! += 1;
    contractProfiles[profile] = {
      description: `${profile} profile`,
      capabilities,
      counts,
      backingCounts,
      names,
      requiredFields,
      confirmTools,
      hash,
      fixtures: {
        modern: `tests/fixtures/tool-contract/${profile}.modern.json`,
        legacy: `tests/fixtures/tool-contract/${profile}.legacy.json`,
      },
    };
  }
  const { naming: _naming, promptProfiles: _prompts, promptIssue: _issue, ...rest } = BUNDLED_CONTRACT;
  const contract: Omit<ContractArtifact, 'profiles'> & { profiles: Record<string, unknown> } = {
    ...rest,
    toolBacking,
    profiles: contractProfiles,
  };
  writeFileSync(join(root, 'docs', 'tool-profile-contract.json'), `${JSON.stringify(contract, null, 2)}\n`);
  return { root, fixturesDir };
}

describe('a fork in upstream layout, against its own fixtures and contract', () => {
  let layout: { root: string; fixturesDir: string };
  beforeAll(async () => {
    const snapshots = {} as Record<'full' | 'default', Record<'modern' | 'legacy', ToolFixture>>;
    await Promise.all(
      (['full', 'default'] as const).map(async (profile) => {
        const { written } = await snapshotServer({
          profile,
          target: forkTarget(profile),
          outDir: tempDir(),
          era: 'both',
          connection: connectionSettings({ timeoutMs: 20_000 }),
        });
        const byEra = Object.fromEntries(
          written.map(({ file }) => [JSON.parse(readFileSync(file, 'utf8')).era, JSON.parse(readFileSync(file, 'utf8'))]),
        );
        snapshots[profile] = byEra as Record<'modern' | 'legacy', ToolFixture>;
      }),
    );
    layout = writeUpstreamLayout(snapshots);
  });

  const checkFork = (profile: string, serving: 'full' | 'default') =>
    checkServer({
      profile,
      target: forkTarget(serving),
      fixturesDir: layout.fixturesDir,
      era: 'both',
      connection: connectionSettings({ timeoutMs: 20_000 }),
      cwd: tempDir(),
      today: '2026-11-30',
    });

  test.each([
    ['phase1-default', 'default', 'phase1-default'],
    ['default', 'default', 'phase1-default'],
    ['full', 'full', 'full'],
  ] as const)(
    '--profile %s passes: the contract beside the fixtures, its own profile name, its names under the bundled naming policy',
    async (typed, serving, named) => {
      const result = await checkFork(typed, serving);
      expect(summary(result.findings.filter((finding) => finding.severity === 'error'))).toEqual([]);
      expect(result.findings.filter((finding) => finding.ruleId.startsWith('naming/')).map((finding) => finding.ruleId)).toEqual([
        'naming/policy-fallback',
      ]);
      expect(result.evidence.contract).toEqual({
        file: join(layout.root, 'docs', 'tool-profile-contract.json'),
        profile: named,
        namingPolicy: 'fallback',
        grandfatheredFormerNames: Object.values(EDITS.renames).sort(),
      });
      expect(result.evidence.hashes.modern!.expected.source).toBe(join(layout.fixturesDir, `${named}.modern.json`));
    },
  );

  test('an extra profile the contract lists is checkable: live-b2-contract is full without one tool', async () => {
    const result = await checkFork('live-b2-contract', 'full');
    expect(summary(result.findings.filter((finding) => finding.severity === 'error'))).toEqual(['diff/tool-added b2_delete_key']);
  });

  test("an unknown profile is a usage error that lists the contract's profiles", async () => {
    const outcome = await runCli([
      'check',
      '--server',
      forkCommand,
      '--fixtures',
      layout.fixturesDir,
      '--profile',
      'phase2',
      '--no-probes',
    ]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe(
      `b2-mcp-conform: error: unknown profile "phase2": the contract ${join(layout.root, 'docs', 'tool-profile-contract.json')} has full, live-b2-contract, phase1-default (alias phase1-default = default); name another contract with --contract FILE\n`,
    );
  });

  test('diff pairs phase1-default with default, and the renames the contract records are one change each', () => {
    const result = diffFixtureDirs({ before: layout.fixturesDir, after: BUNDLED.fixturesDir, cwd: tempDir(), today: '2026-11-30' });
    expect([...(result.evidence.target as { compared: string[] }).compared].sort()).toEqual([
      'default.legacy.json',
      'default.modern.json',
      'full.legacy.json',
      'full.modern.json',
    ]);
    const renames = result.findings.filter((finding) => finding.ruleId === 'diff/tool-renamed');
    expect(renames.map((finding) => finding.tool).sort()).toEqual(Object.keys(EDITS.renames).sort());
    expect(renames.every((finding) => finding.message.endsWith('(a rename the contract records)'))).toBe(true);
    expect(result.findings.some((finding) => finding.ruleId === 'diff/tool-removed' || finding.ruleId === 'diff/tool-added')).toBe(false);
  });
});

afterAll(() => removeTempDirs());
