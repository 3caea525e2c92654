import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CONTRACT_ARTIFACT_PATH, TOOL_FIXTURES_DIR } from '../contract/artifact.js';
import { PACKAGE_ROOT } from '../contract/package-root.js';

export { PACKAGE_ROOT };

/** Everything the checker ships with and falls back to when no option overrides it. */
export const BUNDLED = {
  serverEntry: join(PACKAGE_ROOT, 'dist', 'bin', 'b2-mcp.js'),
  fixturesDir: join(PACKAGE_ROOT, TOOL_FIXTURES_DIR),
  contractFile: join(PACKAGE_ROOT, CONTRACT_ARTIFACT_PATH),
  rulesDir: join(PACKAGE_ROOT, 'rules'),
  reportSchema: join(PACKAGE_ROOT, 'docs', 'report.schema.json'),
  scenarioSchema: join(PACKAGE_ROOT, 'docs', 'scenario.schema.json'),
} as const;

function readVersion(packageJsonPath: string): string {
  return String(JSON.parse(readFileSync(packageJsonPath, 'utf8')).version);
}

/** Installed version of a dependency, found the way Node resolves it: the nearest node_modules upward. */
function dependencyVersion(name: string): string {
  let dir = PACKAGE_ROOT;
  for (;;) {
    const candidate = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(candidate)) return readVersion(candidate);
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}

export const CHECKER_NAME = 'b2-mcp-conform';
export const CHECKER_VERSION = readVersion(join(PACKAGE_ROOT, 'package.json'));

let versions: Record<string, string> | undefined;

/** Versions of the checker and of the clients it speaks through: part of every evidence block. */
export function toolVersions(): Record<string, string> {
  versions ??= {
    [CHECKER_NAME]: CHECKER_VERSION,
    '@modelcontextprotocol/client': dependencyVersion('@modelcontextprotocol/client'),
    '@modelcontextprotocol/sdk': dependencyVersion('@modelcontextprotocol/sdk'),
    node: process.versions.node,
  };
  return { ...versions };
}
