import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { realServerVersions, type RealServerVersion } from '../../scripts/real-servers.js';
import { launchOf } from './launches.js';
import { rawDifferences, rawListTools, type RawDifference } from './raw-client.js';

/**
 * Published MCP servers nobody on this team wrote, each pinned version run offline over stdio:
 * held to its own snapshot it passes clean, and held to the snapshot of the version before it,
 * every difference an independent raw JSON-RPC reader sees in tools/list is named by a finding.
 */
const CLI = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'b2-mcp-conform.js');
const run = promisify(execFile);

interface Finding {
  ruleId: string;
  severity: string;
  message: string;
  tool?: string;
  path?: string;
}

interface CliOutcome {
  code: number;
  stderr: string;
  findings: Finding[];
}

/** The checker's command line for one launch: --server with the command, and its environment. */
function serverArgs(server: RealServerVersion): { args: string[]; cwd: string } {
  const launch = launchOf(server);
  const quoted = [launch.command, ...launch.args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  return {
    args: ['--server', quoted, ...Object.entries(launch.env ?? {}).flatMap(([name, value]) => ['--env', `${name}=${value}`])],
    cwd: launch.cwd!,
  };
}

async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const snapshots = new Map<string, Promise<string>>();

/** The generic snapshot of a version, taken once per run. */
function snapshotOf(server: RealServerVersion): Promise<string> {
  const key = `${server.package}@${server.version}`;
  if (!snapshots.has(key)) {
    snapshots.set(
      key,
      (async () => {
        const out = mkdtempSync(join(tmpdir(), 'real-snapshot-'));
        const { args, cwd } = serverArgs(server);
        const result = await cli(['snapshot', '--pack', 'generic', '--out', out, ...args], cwd);
        if (result.code !== 0) throw new Error(`snapshot of ${key} exited ${result.code}: ${result.stderr.trim()}`);
        return out;
      })(),
    );
  }
  return snapshots.get(key)!;
}

async function checkAgainst(server: RealServerVersion, fixtures: string): Promise<CliOutcome> {
  const { args, cwd } = serverArgs(server);
  const report = join(mkdtempSync(join(tmpdir(), 'real-report-')), 'report.json');
  const result = await cli(
    ['check', '--pack', 'generic', '--no-config', '--fixtures', fixtures, '--format', `json=${report}`, ...args],
    cwd,
  );
  let findings: Finding[] = [];
  try {
    findings = (JSON.parse(readFileSync(report, 'utf8')) as { findings: Finding[] }).findings;
  } catch {
    // no report: the exit code and stderr say why
  }
  return { code: result.code, stderr: result.stderr.trim(), findings };
}

/** A raw difference is named when a finding is about that tool and that field (or, for a whole tool, about its arrival or departure). */
function names(finding: Finding, difference: RawDifference): boolean {
  if (difference.field === 'added' || difference.field === 'removed') {
    return (
      /tool-(added|removed|renamed)/.test(finding.ruleId) && (finding.tool === difference.tool || finding.message.includes(difference.tool))
    );
  }
  return finding.tool === difference.tool && (finding.path ?? '').split(/[.[]/)[0] === difference.field;
}

/**
 * Checks that fail today for reasons being fixed elsewhere, each with what it waits for and whose
 * area it is in. They run as expected failures and are taken off this list as the fixes land;
 * REAL_SERVERS_STRICT=1 runs them as plain tests.
 */
const WAITING: Record<string, string> = {
  '@modelcontextprotocol/server-filesystem@2025.7.1→2025.11.25':
    'udiff: an annotations change of edit_file the raw reader sees is named by no finding',
  '@cyanheads/git-mcp-server@2.10.5': "tschema: schema/pattern-backtracking warning on git_commit's author email pattern",
};

/**
 * What a self-check rightly reports: a published version that is broken for MCP clients. Its
 * self-check must report exactly this, on exactly these tools, and nothing else at warning or above.
 */
const TRUE_FINDINGS: Record<string, { ruleId: string; tools: string[]; why: string }> = {
  '@modelcontextprotocol/server-filesystem@2025.7.1': {
    ruleId: 'protocol/tool-accepted',
    tools: [
      'create_directory',
      'directory_tree',
      'edit_file',
      'get_file_info',
      'list_directory',
      'list_directory_with_sizes',
      'move_file',
      'read_file',
      'read_multiple_files',
      'search_files',
      'write_file',
    ],
    why: 'its input schemas are only {"$schema": draft-07}: no type and no properties, so the SDK clients reject the whole tools/list answer',
  },
};

/** `it`, or `it.fails` while the check waits for a fix named in WAITING. */
const checkOf = (key: string) => (WAITING[key] && !process.env.REAL_SERVERS_STRICT ? it.fails : it);

const brief = (findings: readonly Finding[]) =>
  findings.map(
    (finding) => `${finding.severity} ${finding.ruleId} ${finding.tool ?? ''} ${finding.path ?? ''}: ${finding.message.slice(0, 160)}`,
  );

for (const { package: name, versions } of realServerVersions()) {
  describe(name, () => {
    for (const version of versions) {
      const server = { package: name, version };
      checkOf(`${name}@${version}`)(
        `${version}: held to its own snapshot, passes with no error or warning (or exactly its true findings)`,
        async () => {
          const outcome = await checkAgainst(server, await snapshotOf(server));
          const known = TRUE_FINDINGS[`${name}@${version}`];
          const reported = outcome.findings.filter((finding) => finding.severity !== 'info');
          if (known) {
            expect(outcome.code, outcome.stderr).toBe(1);
            expect(reported.map((finding) => `${finding.ruleId} ${finding.tool}`).sort(), known.why).toEqual(
              known.tools.map((tool) => `${known.ruleId} ${tool}`),
            );
            return;
          }
          expect({ code: outcome.code, stderr: outcome.code === 0 ? '' : outcome.stderr, findings: brief(reported) }).toEqual({
            code: 0,
            stderr: '',
            findings: [],
          });
        },
      );
    }
    for (const [index, version] of versions.slice(1).entries()) {
      const before = { package: name, version: versions[index]! };
      const after = { package: name, version };
      checkOf(`${name}@${before.version}→${version}`)(
        `${before.version} → ${version}: every difference a raw reader sees is named by a finding`,
        async () => {
          const [rawBefore, rawAfter] = await Promise.all([rawListTools(launchOf(before)), rawListTools(launchOf(after))]);
          const differences = rawDifferences(rawBefore, rawAfter);
          const outcome = await checkAgainst(after, await snapshotOf(before));
          expect(outcome.stderr && outcome.findings.length === 0 ? outcome.stderr : 'report written').toBe('report written');
          const unnamed = differences.filter((difference) => !outcome.findings.some((finding) => names(finding, difference)));
          expect(unnamed).toEqual([]);
        },
      );
    }
  });
}
