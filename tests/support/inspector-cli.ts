import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ProfileName } from '../../src/contract/constants.js';
import { snapshotTools, type ListedTool, type ToolSnapshot } from '../../src/contract/normalize.js';
import { bundledEnvironment } from '../../src/conformance/connect/bundled.js';
import { BUNDLED } from '../../src/conformance/package-root.js';
import { checkServer } from '../../src/conformance/commands/check.js';
import { stdioTarget } from '../../src/conformance/connect/target.js';
import { connectionSettings } from '../../src/conformance/api.js';

/** The MCP Inspector's command line (a devDependency): a client with its own SDK, not ours. */
const INSPECTOR_CLI = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/inspector/cli/build/cli.js', import.meta.url));

/** `tools/list` of the bundled server over stdio, as the Inspector's CLI mode lists it. */
export async function inspectorSnapshot(profile: ProfileName): Promise<ToolSnapshot> {
  const env = Object.entries(bundledEnvironment(profile)).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [INSPECTOR_CLI, '--cli', ...env, process.execPath, BUNDLED.serverEntry, '--method', 'tools/list'],
    { timeout: 90_000, maxBuffer: 32 * 1024 * 1024 },
  );
  return snapshotTools((JSON.parse(stdout) as { tools: ListedTool[] }).tools);
}

/** The hash of `tools/list` (names and normalized tools) each of our clients (modern, legacy, witness) saw on the same server over stdio. */
export async function ourHashes(profile: ProfileName): Promise<Record<string, string>> {
  const result = await checkServer({
    profile,
    target: stdioTarget(`"${process.execPath}" "${BUNDLED.serverEntry}"`, bundledEnvironment(profile)),
    era: 'both',
    connection: connectionSettings({ timeoutMs: 30_000 }),
  });
  return Object.fromEntries(Object.entries(result.evidence.connections).map(([connection, seen]) => [connection, seen!.hash]));
}
