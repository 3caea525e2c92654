import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateContractFiles } from '../../../scripts/contract/generate.js';
import { ENVIRONMENT_VARIABLES } from '../../../src/server/config.js';

const root = join(import.meta.dirname, '..', '..', '..');

describe('generated contract files', () => {
  it('match what the live server produces (run npm run generate:contract after an intended change)', async () => {
    const files = await generateContractFiles();
    expect([...files.keys()].sort()).toEqual([
      'README.md',
      'docs/generated/tool-profile-contract.json',
      'docs/generated/tool-profiles.md',
      'fixtures/prompt-contract/default.json',
      'fixtures/prompt-contract/full.json',
      'fixtures/prompt-contract/read-only.json',
      'fixtures/tool-contract/default.legacy.json',
      'fixtures/tool-contract/default.modern.json',
      'fixtures/tool-contract/full.legacy.json',
      'fixtures/tool-contract/full.modern.json',
      'fixtures/tool-contract/read-only.legacy.json',
      'fixtures/tool-contract/read-only.modern.json',
      'src/conformance/connect/json-schema-meta.generated.ts',
    ]);
    for (const [path, content] of files) {
      expect(readFileSync(join(root, path), 'utf8'), path).toBe(content);
    }
  });

  it('document every environment variable the code reads', () => {
    // A variable the code only sets for a library (`env.X ??= …`) is not one it reads.
    const sources = execFileSync(
      'grep',
      ['-rhoE', "(env\\.|readSetting\\(env, [a-z']+, ')[A-Z][A-Z0-9_]+( \\?\\?=)?", join(root, 'src/server'), join(root, 'bin')],
      { encoding: 'utf8' },
    );
    const reads = sources.split('\n').filter((match) => match && !match.endsWith('??='));
    const read = new Set(reads.map((m) => m.replace(/.*[.']/, '')));
    const documented = new Set(ENVIRONMENT_VARIABLES.map((v) => v.name));
    expect([...read].filter((name) => !documented.has(name))).toEqual([]);
  });
});
