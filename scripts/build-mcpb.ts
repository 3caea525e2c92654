/**
 * `npm run bundle`: builds `b2-mcp.mcpb`, an MCP Bundle for one-click desktop install, with the
 * MCP Bundle CLI (`@anthropic-ai/mcpb`, pinned in scripts/registry-tools.ts). The bundle holds
 * mcpb/manifest.json (user configuration: key id, key (sensitive), profile, file root), the built
 * `b2-mcp` bin, package.json and the production dependencies, installed from package-lock.json.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installRegistryTools, toolBinary } from './registry-tools.js';
import { packageRoot } from '../src/server/package-info.js';

export const MANIFEST = join(packageRoot(), 'mcpb', 'manifest.json');
export const BUNDLE = join(packageRoot(), 'b2-mcp.mcpb');

/** Runs the MCP Bundle CLI; throws with its output when it fails. */
export function mcpb(args: string[]): string {
  return execFileSync(process.execPath, [toolBinary('mcpb'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function buildBundle(output = BUNDLE): void {
  installRegistryTools(['mcpb']);
  mcpb(['validate', MANIFEST]);
  const stage = mkdtempSync(join(tmpdir(), 'b2-mcp-mcpb-'));
  try {
    for (const file of ['package.json', 'package-lock.json', 'LICENSE']) cpSync(join(packageRoot(), file), join(stage, file));
    cpSync(MANIFEST, join(stage, 'manifest.json'));
    cpSync(join(packageRoot(), 'dist', 'bin'), join(stage, 'dist', 'bin'), { recursive: true, filter: (path) => !path.endsWith('.d.ts') });
    execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: stage,
      stdio: 'inherit',
    });
    rmSync(output, { force: true });
    mcpb(['pack', stage, output]);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildBundle();
  console.log(`wrote ${BUNDLE}`);
}
