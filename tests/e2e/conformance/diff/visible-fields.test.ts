import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { diffFixtureDirs } from '../../../../src/conformance/commands/diff.js';
import { diffVisibleFields } from '../../../../src/conformance/diff/visible-fields.js';
import { baselineSurface, type Surface } from '../../../support/baseline.js';
import {
  check,
  firedRules,
  mutate,
  PROFILE,
  removeTempDirs,
  snapshotFixtures,
  startSurfaceHttp,
  tempDir,
  toolOf,
  writeContract,
  type SurfaceHttpServer,
} from '../../../support/checker-harness.js';

/** The baseline with a title and instructions, so that changing either is a change of recorded text. */
function titled(): Surface {
  return mutate(baselineSurface(), (s) => {
    toolOf(s, 'b2_delete_bucket').title = 'Delete bucket';
    s.instructions = "Deletions need the user's explicit approval.";
  });
}

const VARIANTS: Record<string, Surface> = {
  baseline: titled(),
  'title-changed': mutate(titled(), (s) => void (toolOf(s, 'b2_delete_bucket').title = 'Remove bucket')),
  'title-added': mutate(titled(), (s) => void (toolOf(s, 'b2_list_buckets').title = 'List buckets')),
  'instructions-changed': mutate(titled(), (s) => void (s.instructions = 'Deletions are final.')),
};

let server: SurfaceHttpServer;
let fixturesDir: string;
let contractFile: string;

beforeAll(async () => {
  server = await startSurfaceHttp(VARIANTS);
  fixturesDir = await snapshotFixtures(server.target('baseline'));
  contractFile = writeContract(fixturesDir);
});

afterAll(() => {
  server?.stop();
  removeTempDirs();
});

test('fixtures record tool titles and the server instructions beside the hash, which does not cover them', async () => {
  const fixture = JSON.parse(readFileSync(join(fixturesDir, `${PROFILE}.modern.json`), 'utf8'));
  expect(fixture.titles).toEqual({ b2_delete_bucket: 'Delete bucket' });
  expect(fixture.instructions).toBe("Deletions need the user's explicit approval.");
  const untitled = JSON.parse(readFileSync(join(await snapshotFixtures(server.target('title-changed')), `${PROFILE}.modern.json`), 'utf8'));
  expect(untitled.hash).toBe(fixture.hash);
  expect(Object.keys(fixture).slice(-7)).toEqual(['titles', 'instructions', 'serverCapabilities', 'execution', 'icons', 'modern', 'hash']);
});

describe.concurrent('check compares them with the fixtures', () => {
  test('the unchanged server passes', async () => {
    expect((await check(server.target('baseline'), { fixturesDir, contractFile })).findings).toEqual([]);
  });

  test.each([
    ['title-changed', 'diff/description-changed', { tool: 'b2_delete_bucket', path: 'title' }],
    ['title-added', 'diff/description-changed', { tool: 'b2_list_buckets', path: 'title' }],
    ['instructions-changed', 'diff/instructions-changed', { path: 'instructions' }],
  ])('%s is caught as %s', async (variant, rule, at) => {
    const result = await check(server.target(variant), { fixturesDir, contractFile });
    expect(firedRules(result)).toEqual([rule]);
    expect(result.findings[0]).toMatchObject({ severity: 'error', ...at });
    expect(result.findings[0]!.scopes.sort()).toEqual(['legacy', 'modern']);
  });
});

test('diff reports a changed title between two fixture sets', async () => {
  const after = await snapshotFixtures(server.target('title-changed'));
  const result = diffFixtureDirs({ before: fixturesDir, after, cwd: tempDir() });
  expect(firedRules(result)).toEqual(['diff/description-changed']);
  expect(result.findings[0]).toMatchObject({ tool: 'b2_delete_bucket', path: 'title', severity: 'warning' });
});

test('a fixture written before titles and instructions were recorded is not compared on them', async () => {
  const old = tempDir();
  for (const era of ['modern', 'legacy']) {
    const fixture = JSON.parse(readFileSync(join(fixturesDir, `${PROFILE}.${era}.json`), 'utf8'));
    delete fixture.titles;
    delete fixture.instructions;
    writeFileSync(join(old, `${PROFILE}.${era}.json`), JSON.stringify(fixture));
  }
  const result = await check(server.target('title-changed'), { fixturesDir: old, contractFile });
  expect(result.findings).toEqual([]);
  // Not compared is said, not silent.
  expect(result.evidence.notes).toEqual([
    `titles, instructions: not recorded in the fixture ${join(old, `${PROFILE}.modern.json`)}, not compared`,
    `titles, instructions: not recorded in the fixture ${join(old, `${PROFILE}.legacy.json`)}, not compared`,
  ]);
  expect(
    diffVisibleFields({ names: ['a'], titles: { a: 'A' }, instructions: null }, { names: ['a'], titles: { a: 'A' }, instructions: 'x' }),
  ).toEqual([{ kind: 'instructions-changed', path: 'instructions', before: null, after: 'x' }]);
});

test('a contract that predates backing categories and the approved cache hint is checked on the rest, with a note for each part', async () => {
  const older = writeContract(fixturesDir, (contract) => {
    const parts = contract as unknown as Record<string, unknown>;
    for (const part of ['toolBacking', 'backingCategories', 'approvedCacheHint', 'naming']) delete parts[part];
    delete (contract.profiles[PROFILE as keyof typeof contract.profiles] as unknown as Record<string, unknown>).backingCounts;
  });
  const result = await check(server.target('baseline'), { fixturesDir, contractFile: older });
  expect(firedRules(result)).toEqual(['naming/policy-fallback']);
  expect(result.evidence.notes).toEqual([
    `the contract ${older} has no toolBacking (it predates backing categories): tool backing and counts per backing category are not judged`,
    `the contract ${older} has no approvedCacheHint: cache hints are not judged against it`,
  ]);
  expect(result.evidence.cacheHints).toBeNull();
});
