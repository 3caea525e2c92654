import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { PACKAGE_ROOT } from '../../../../src/conformance/package-root.js';
import { loadRules, selectPack } from '../../../../src/conformance/rules/engine.js';
import { runCli } from '../../../support/checker-harness.js';

const ruleSet = loadRules(undefined, { validate: true });

test('exactly one pack is the default, and every rule belongs to packs that exist', () => {
  const names = ruleSet.packs.map((pack) => pack.name);
  expect(ruleSet.packs.filter((pack) => pack.default).map((pack) => pack.name)).toEqual([selectPack(ruleSet).name]);
  for (const rule of ruleSet.rules) {
    expect(rule.packs.length, rule.id).toBeGreaterThan(0);
    for (const pack of rule.packs) expect(names, rule.id).toContain(pack);
  }
});

test('the default pack runs every rule that judges a server, so a run without --pack is what it was before packs', () => {
  const fallback = selectPack(ruleSet);
  const repositoryPacks = ruleSet.packs.filter((pack) => pack.baseline === 'repository').map((pack) => pack.name);
  const judgesServers = ruleSet.rules.filter((rule) => !rule.packs.every((pack) => repositoryPacks.includes(pack)));
  expect(repositoryPacks.length).toBeGreaterThan(0);
  expect(judgesServers.filter((rule) => !rule.packs.includes(fallback.name)).map((rule) => rule.id)).toEqual([]);
});

test('a snapshot pack leaves out every rule that needs a contract or a naming policy', async () => {
  const { CHECK_KINDS } = await import('../../../../src/conformance/rules/kinds/index.js');
  for (const pack of ruleSet.packs.filter((candidate) => candidate.baseline === 'snapshot')) {
    const members = ruleSet.rules.filter((rule) => rule.packs.includes(pack.name));
    expect(members.length).toBeGreaterThan(40);
    for (const rule of members) expect(CHECK_KINDS[rule.check.kind]!.needs, rule.id).not.toEqual(expect.arrayContaining(['contract']));
    for (const rule of members) expect(CHECK_KINDS[rule.check.kind]!.needs, rule.id).not.toEqual(expect.arrayContaining(['naming']));
  }
});

test('the checker names no pack in code: packs are data', () => {
  const names = ruleSet.packs.map((pack) => pack.name);
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
    );
  for (const file of sources(join(PACKAGE_ROOT, 'src', 'conformance'))) {
    const text = readFileSync(file, 'utf8');
    for (const name of names) expect(text, `${file} names pack ${name}`).not.toMatch(new RegExp(`['"\`]${name}['"\`]`));
  }
});

test('an unknown --pack is a usage error (exit 2) listing the packs', async () => {
  const outcome = await runCli(['check', '--pack', 'nonesuch', '--server', 'node -e 0', '--fixtures', '.']);
  expect(outcome.code).toBe(2);
  expect(outcome.stderr).toMatch(/unknown pack "nonesuch" \(available: b2, generic\)/);
  const lintPack = await runCli(['check', '--pack', 'lockstep', '--server', 'node -e 0', '--fixtures', '.']);
  expect(lintPack.code).toBe(2);
  expect(lintPack.stderr).toMatch(/unknown pack "lockstep" \(available: b2, generic\)/);
});

test('a snapshot pack without --fixtures says how to take the snapshot', async () => {
  const outcome = await runCli(['check', '--pack', 'generic', '--server', 'node -e 0']);
  expect(outcome.code).toBe(2);
  expect(outcome.stderr).toMatch(/snapshot --pack generic --out DIR/);
});

test('--pack b2 on the bundled server gives what a run without --pack gives: same rules, same findings, same hashes', async () => {
  const { checkResult } = await import('../../../../src/conformance/api.js');
  const options = { probes: false, config: false as const, today: '2026-01-01' };
  const [plain, b2] = await Promise.all([checkResult(options), checkResult({ ...options, pack: selectPack(ruleSet).name })]);
  expect(b2.evaluated).toEqual(plain.evaluated);
  expect(b2.evaluated.length).toBeGreaterThan(60);
  expect(b2.findings).toEqual(plain.findings);
  expect(b2.evidence.hashes).toEqual(plain.evidence.hashes);
  expect(b2.evidence.contractHash).toBe(plain.evidence.contractHash);
}, 60_000);
