import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { contractBeside, loadContract } from '../../../src/conformance/diff/fixtures.js';
import { namingPolicyFor, namingPolicyProblem } from '../../../src/conformance/diff/naming-policy.js';
import { BUNDLED } from '../../../src/conformance/package-root.js';
import { pairFixtureFiles } from '../../../src/conformance/diff/fixture-pairs.js';
import { profileSpellings, resolveContractProfile } from '../../../src/conformance/connect/target.js';
import { removeTempDirs, tempDir, writeJson } from '../../support/checker-harness.js';

afterAll(() => removeTempDirs());

const bundled = loadContract(BUNDLED.contractFile);

describe('where the contract of a fixtures directory is', () => {
  function repository(files: string[], marker = 'package.json'): string {
    const root = tempDir();
    writeFileSync(join(root, marker), '{}\n');
    for (const file of files) {
      mkdirSync(join(root, file, '..'), { recursive: true });
      writeFileSync(join(root, file), '{}\n');
    }
    mkdirSync(join(root, 'tests', 'fixtures', 'tool-contract'), { recursive: true });
    return root;
  }

  test('upstream layout: docs/tool-profile-contract.json at the repository root', () => {
    const root = repository(['docs/tool-profile-contract.json']);
    expect(contractBeside(join(root, 'tests', 'fixtures', 'tool-contract'))).toBe(join(root, 'docs', 'tool-profile-contract.json'));
  });

  test('our layout wins when both are there, and the nearest directory wins over its parents', () => {
    const root = repository([
      'docs/tool-profile-contract.json',
      'docs/generated/tool-profile-contract.json',
      'tests/docs/tool-profile-contract.json',
    ]);
    expect(contractBeside(join(root, 'tests', 'fixtures', 'tool-contract'))).toBe(
      join(root, 'tests', 'docs', 'tool-profile-contract.json'),
    );
    expect(contractBeside(root)).toBe(join(root, 'docs', 'generated', 'tool-profile-contract.json'));
  });

  test('the search stops at the repository root (.git or package.json)', () => {
    const outer = repository(['docs/tool-profile-contract.json']);
    const inner = join(outer, 'vendor', 'fork');
    mkdirSync(join(inner, 'fixtures'), { recursive: true });
    writeFileSync(join(inner, '.git'), 'gitdir: elsewhere\n');
    expect(contractBeside(join(inner, 'fixtures'))).toBeUndefined();
  });
});

describe('profile names follow the contract', () => {
  test('phase1-default and default are one profile, found under the name the contract uses', () => {
    expect(profileSpellings('phase1-default').sort()).toEqual(['default', 'phase1-default']);
    expect(profileSpellings('default').sort()).toEqual(['default', 'phase1-default']);
    expect(resolveContractProfile('phase1-default', ['full', 'default'], 'c.json')).toBe('default');
    expect(resolveContractProfile('default', ['full', 'phase1-default', 'live-b2-contract'], 'c.json')).toBe('phase1-default');
    expect(resolveContractProfile('live-b2-contract', ['full', 'phase1-default', 'live-b2-contract'], 'c.json')).toBe('live-b2-contract');
  });

  test('an unknown profile lists what the contract has', () => {
    expect(() => resolveContractProfile('phase2', ['read-only', 'full'], 'c.json')).toThrow(
      'unknown profile "phase2": the contract c.json has full, read-only',
    );
    expect(() => resolveContractProfile('phase2', ['read-only', 'full'], 'c.json')).toThrow(
      /; name another contract with --contract FILE$/,
    );
  });

  test('diff pairs the same file, else the same era under the other spelling', () => {
    expect(
      pairFixtureFiles(
        ['full.modern.json', 'phase1-default.modern.json', 'phase1-default.legacy.json', 'live-b2-contract.modern.json'],
        ['full.modern.json', 'default.modern.json', 'read-only.modern.json'],
      ),
    ).toEqual([
      { before: 'full.modern.json', after: 'full.modern.json', scope: 'full.modern' },
      { before: 'phase1-default.modern.json', after: 'default.modern.json', scope: 'default.modern' },
    ]);
    // A file that has its exact partner is not paired again under the other spelling.
    expect(pairFixtureFiles(['default.modern.json', 'phase1-default.modern.json'], ['default.modern.json'])).toEqual([
      { before: 'default.modern.json', after: 'default.modern.json', scope: 'default.modern' },
    ]);
  });
});

describe('the naming policy of a contract', () => {
  test('our artifact publishes one, with the four renames', () => {
    expect(namingPolicyProblem(bundled.naming)).toBeNull();
    expect(bundled.naming!.renames).toContainEqual({ from: 's3_presign_upload_part', to: 's3_get_presigned_upload_part_url' });
    const inUse = namingPolicyFor(bundled, bundled);
    expect(inUse.source).toBe('contract');
    expect(inUse.removed.get('b2_largest_files')).toBe('b2_list_largest_files');
  });

  test.each([
    [{ ...bundled.naming, verbs: [] }, 'naming.verbs must be a non-empty list of strings'],
    [{ ...bundled.naming, prefixes: { awsS3Sdk: 3 } }, 'naming.prefixes must map backing categories to prefixes'],
    [{ ...bundled.naming, renames: [{ from: 'a' }] }, 'naming.renames must be a list of { from, to }'],
    [{ ...bundled.naming, presign: { when: '(', pattern: 'x' } }, 'naming.presign.when is not a valid regular expression'],
    [{ ...bundled.naming, presign: { when: 'presign' } }, 'naming.presign needs when and pattern'],
  ])('a malformed naming block is refused: %#', (naming, problem) => {
    const file = writeJson(tempDir(), 'contract.json', { ...bundled, naming });
    expect(() => loadContract(file)).toThrow(
      `contract artifact ${file} cannot be used: ${problem}; name the contract to use with --contract FILE`,
    );
  });

  test('without one, the bundled policy applies; former names the contract lists are its own, the rest stay retired', () => {
    const { naming: _naming, ...rest } = bundled;
    const older = { ...rest, toolBacking: { ...rest.toolBacking, b2_largest_files: 'customMcp' as const } };
    const inUse = namingPolicyFor(older, bundled);
    expect(inUse.source).toBe('fallback');
    expect(inUse.adopted).toEqual(['b2_largest_files']);
    expect(inUse.grandfathered.has('b2_largest_files')).toBe(true);
    expect(inUse.removed.has('b2_largest_files')).toBe(false);
    expect(inUse.removed.get('b2_usage_growth')).toBe('b2_report_usage_growth');
  });
});
