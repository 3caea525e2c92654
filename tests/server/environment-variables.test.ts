import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { b2UserAgent } from '../../src/server/b2/native-client.js';
import { runHttp } from '../../src/server/cli.js';
import { ENVIRONMENT_VARIABLES, loadConfig, readSetting } from '../../src/server/config.js';

const TESTS_DIR = join(import.meta.dirname, '..');
const DOCUMENTED = ENVIRONMENT_VARIABLES.map(({ name }) => name).sort();

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'planted-bugs' ? [] : testFiles(path);
    return /\.(test\.ts|mjs)$/.test(entry) || /support\.ts$|harness\.ts$/.test(entry) ? [path] : [];
  });
}

/** A variable counts as tested where a test gives it a value: `NAME: …`, `'NAME': …` or `NAME=…`. */
function testedVariables(): Map<string, string[]> {
  const tested = new Map<string, string[]>();
  for (const file of testFiles(TESTS_DIR)) {
    const text = readFileSync(file, 'utf8');
    for (const name of DOCUMENTED) {
      if (new RegExp(`\\b${name}['"]?\\s*[:=]`).test(text)) tested.set(name, [...(tested.get(name) ?? []), relative(TESTS_DIR, file)]);
    }
  }
  return tested;
}

describe('every documented environment variable is tested', () => {
  it('the documented list (src/server/config.ts, the README table) and the tested list are equal', () => {
    expect([...testedVariables().keys()].sort()).toEqual(DOCUMENTED);
  });
});

describe('variables no other test sets', () => {
  const keyless = { B2_MCP_PROFILE: 'default' };

  it('B2_REGISTER_ALL_TOOLS=true serves the full surface without a key; invalid values are refused', () => {
    expect(loadConfig({ B2_REGISTER_ALL_TOOLS: 'true' }, 'stdio')).toMatchObject({ registerAllTools: true });
    expect(() => loadConfig({}, 'stdio')).toThrow(/B2_APPLICATION_KEY_ID/);
    expect(() => loadConfig({ B2_REGISTER_ALL_TOOLS: 'yes' }, 'stdio')).toThrow(/B2_REGISTER_ALL_TOOLS must be one of true, false/);
  });

  it('B2_REGION sets the fallback S3 region, us-west-004 by default', () => {
    expect(loadConfig({ ...keyless, B2_REGION: 'eu-central-003' }, 'stdio').region).toBe('eu-central-003');
    expect(loadConfig(keyless, 'http').region).toBe('us-west-004');
  });

  it('B2_MCP_UA_SUFFIX is appended to the User-Agent as one token, trimmed; blank adds nothing', () => {
    expect(b2UserAgent('1.2.3', readSetting({ B2_MCP_UA_SUFFIX: ' ci-run/7 ' }, 'stdio', 'B2_MCP_UA_SUFFIX'))).toBe(
      'b2-mcp/1.2.3 ci-run/7',
    );
    expect(b2UserAgent('1.2.3', readSetting({ B2_MCP_UA_SUFFIX: '   ' }, 'stdio', 'B2_MCP_UA_SUFFIX'))).toBe('b2-mcp/1.2.3');
  });

  it.each(['0x50', '65536', '-1', 'http'])('PORT=%s is refused before anything listens', async (port) => {
    await expect(runHttp({ ...keyless, PORT: port }, { host: '127.0.0.1' })).rejects.toThrow(/PORT/);
  });
});
