import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../../../src/conformance/cli.js';

/**
 * docs/conformance.md: a --server process gets only the few variables every process needs
 * (HOME, LOGNAME, PATH, SHELL, TERM, USER) and what --env names; the checker's own environment,
 * CI secrets included, stays with the checker.
 */
const ALLOWED = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
const CANARY_NAME = 'CI_DEPLOY_TOKEN_CANARY';
const CANARY = 'ci-secret-canary-4f1d9b7e2a';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'server-env-'));
  process.env[CANARY_NAME] = CANARY;
});
afterAll(() => {
  delete process.env[CANARY_NAME];
  rmSync(dir, { recursive: true, force: true });
});

it("a --server process sees the safe defaults and --env only, never the checker's secrets", async () => {
  const script = join(dir, 'dump-env.mjs');
  const dump = join(dir, 'env.json');
  writeFileSync(script, `import { writeFileSync } from 'node:fs';\nwriteFileSync(process.env.DUMP_TO, JSON.stringify(process.env));\n`);
  const shellEnv = { ...process.env, PASSED: 'given', [CANARY_NAME]: CANARY } as Record<string, string>;
  const code = await main(
    [
      'node',
      'b2-mcp-conform',
      'check',
      '--no-probes',
      '--timeout',
      '20000',
      '--server',
      `"${process.execPath}" "${script}"`,
      '--env',
      `DUMP_TO=${dump}`,
      '--env',
      'PASSED',
    ],
    { stdout: () => undefined, stderr: () => undefined, color: false, cwd: dir, env: shellEnv },
  );
  expect(code).not.toBe(0);
  const seen = JSON.parse(readFileSync(dump, 'utf8')) as Record<string, string>;
  expect(seen.PASSED).toBe('given');
  expect(seen.DUMP_TO).toBe(dump);
  expect(Object.values(seen)).not.toContain(CANARY);
  const unexpected = Object.keys(seen).filter((name) => !ALLOWED.includes(name) && name !== 'PASSED' && name !== 'DUMP_TO');
  expect(unexpected).toEqual([]);
});
