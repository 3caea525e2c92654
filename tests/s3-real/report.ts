/** docs/s3-real.md, written by the suite from what each tool's test did and how it ended. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const REPORT_PATH = join(import.meta.dirname, '..', '..', 'docs', 's3-real.md');

export interface ToolRow {
  tool: string;
  /** What the test exercised, one phrase per check. */
  checks: string[];
  outcome: 'pass' | 'fail';
  /** The failure, first line only. */
  failure?: string;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

export function renderReport(input: { server: string; rows: ToolRow[]; observations: string[] }): string {
  const passed = input.rows.filter((r) => r.outcome === 'pass').length;
  const lines = [
    '# The S3 tools against a real S3 server',
    '',
    '<!-- Written by `npm run test:s3-real` (tests/s3-real); do not edit by hand. -->',
    '',
    `\`npm run test:s3-real\` starts ${input.server} on loopback (one monitor, one \`memstore\` OSD,`,
    "the beast frontend on 127.0.0.1; Debian's `radosgw ceph-mon ceph-osd`, installed with apt-get",
    'when missing), points `b2-mcp sandbox --s3-upstream` at it, and drives the unchanged `b2-mcp`',
    "server over stdio with the official MCP client. Every check compares the tool's answer with",
    'what the gateway itself reports through a separate AWS SDK client. `.ci/run` runs it after the',
    'main tests; it is skipped, with the reason printed, only where the packages cannot be installed.',
    '',
    `Last run: ${passed} of ${input.rows.length} tools passed.`,
    '',
    '| Tool | Exercised | Result |',
    '| --- | --- | --- |',
    ...input.rows.map(
      (r) => `| \`${r.tool}\` | ${cell(r.checks.join('; '))} | ${r.outcome === 'pass' ? 'pass' : `**fail**: ${cell(r.failure ?? '')}`} |`,
    ),
    '',
    '## What the gateway does differently',
    '',
    ...(input.observations.length ? input.observations.map((o) => `- ${o}`) : ['- Nothing the tools had to allow for.']),
    '',
  ];
  return lines.join('\n');
}

export function writeReport(input: Parameters<typeof renderReport>[0]): void {
  writeFileSync(REPORT_PATH, renderReport(input));
}
