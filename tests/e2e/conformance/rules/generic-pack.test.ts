import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { removeTempDirs, runCli, SERVERS_DIR, tempDir, writeJson } from '../../../support/checker-harness.js';

const HERE = fileURLToPath(new URL('../../../support/generic', import.meta.url));
const BASELINE = JSON.parse(readFileSync(join(HERE, 'notes-surface.json'), 'utf8')) as Surface;

interface Tool {
  name: string;
  description: string;
  inputSchema: { properties: Record<string, Record<string, unknown>>; required?: string[] };
  annotations: Record<string, boolean>;
}
interface Surface {
  serverInfo: { name: string; version: string };
  tools: Tool[];
}

function variant(edit: (surface: Surface) => void): Surface {
  const copy = structuredClone(BASELINE);
  edit(copy);
  return copy;
}

const tool = (surface: Surface, name: string) => surface.tools.find((candidate) => candidate.name === name)!;

/** Each broken variant of the baseline, and the error rule it must fail with. */
const BROKEN: [string, (surface: Surface) => void, string][] = [
  ['a renamed tool', (s) => void (tool(s, 'delete_note').name = 'remove_note'), 'diff/tool-renamed'],
  [
    'a removed required field',
    (s) => {
      const schema = tool(s, 'create_note').inputSchema;
      delete schema.properties.body;
      schema.required = ['title'];
    },
    'diff/property-removed',
  ],
  [
    'a flipped destructive hint',
    (s) => void (tool(s, 'delete_note').annotations.destructiveHint = false),
    'diff/annotation-non-destructive-claimed',
  ],
  [
    'a credential field deep in a schema',
    (s) => {
      const options = tool(s, 'create_note').inputSchema.properties.options as { properties: Record<string, unknown> };
      options.properties.sync = { type: 'object', properties: { remote: { type: 'object', properties: { apiKey: { type: 'string' } } } } };
    },
    'credentials/prohibited-field',
  ],
  [
    'zero-width text in a description',
    (s) =>
      void (tool(s, 'list_notes').description = 'List the notes of the current\u200b notebook, newest first, with their titles and tags.'),
    'visible/zero-width',
  ],
];

/** The two servers written for these tests: neither is B2, and one speaks only the 2025 era. */
const SERVERS = {
  'raw JSON-RPC, 2025 era only': (file: string) => `"${process.execPath}" "${join(HERE, 'servers', 'raw-2025.mjs')}" "${file}"`,
  'official SDK, both eras': (file: string) => `"${process.execPath}" "${join(SERVERS_DIR, 'surface-server.mjs')}" stdio "${file}"`,
} as const;

interface JsonReport {
  findings: { ruleId: string; severity: string; text?: { before: string; after: string } }[];
  evidence: { connections: Record<string, unknown>; notes?: string[] };
}

afterAll(removeTempDirs);

describe.each(Object.entries(SERVERS))('--pack generic on a server (%s)', (label, command) => {
  let fixtures: string;
  let snapshotOut: string;
  beforeAll(async () => {
    fixtures = tempDir();
    const outcome = await runCli([
      'snapshot',
      '--pack',
      'generic',
      '--server',
      command(writeJson(tempDir(), 'surface.json', BASELINE)),
      '--out',
      fixtures,
    ]);
    expect(outcome.code, outcome.stderr).toBe(0);
    snapshotOut = outcome.stdout;
  }, 30_000);

  const checkAgainst = async (surface: Surface) => {
    const outcome = await runCli([
      'check',
      '--pack',
      'generic',
      '--server',
      command(writeJson(tempDir(), 'surface.json', surface)),
      '--fixtures',
      fixtures,
      '--format',
      'json',
    ]);
    return { ...outcome, report: outcome.stdout ? (JSON.parse(outcome.stdout) as JsonReport) : undefined };
  };

  test('the snapshot records the eras the server offers, with a fixture for each', () => {
    const manifest = JSON.parse(readFileSync(join(fixtures, 'snapshot.json'), 'utf8')) as { eras: string[]; notOffered: { era: string }[] };
    const only2025 = label.includes('2025 era only');
    expect(manifest.eras).toEqual(only2025 ? ['legacy'] : ['modern', 'legacy']);
    expect(manifest.notOffered.map((entry) => entry.era)).toEqual(only2025 ? ['modern'] : []);
    expect(snapshotOut).toContain('default.legacy.json');
    expect(snapshotOut.includes('default.modern.json')).toBe(!only2025);
  });

  test('the unchanged server passes with zero findings', async () => {
    const { code, report, stderr } = await checkAgainst(BASELINE);
    expect(code, stderr).toBe(0);
    expect(report!.findings).toEqual([]);
    const only2025 = label.includes('2025 era only');
    expect('modern' in report!.evidence.connections).toBe(!only2025);
    expect(report!.evidence.notes ?? []).toHaveLength(only2025 ? 1 : 0);
  }, 30_000);

  test('a changed description is reported with both texts, for a word diff', async () => {
    const changed = 'Delete one note by its id. The note goes to the trash for thirty days.';
    const { code, report } = await checkAgainst(variant((s) => void (tool(s, 'delete_note').description = changed)));
    expect(code).toBe(1);
    expect(report!.findings.map((candidate) => candidate.ruleId)).toEqual(['diff/description-changed']);
    const finding = report!.findings.find((candidate) => candidate.ruleId === 'diff/description-changed');
    expect(finding?.text).toEqual({ before: tool(BASELINE, 'delete_note').description, after: changed });
  }, 30_000);

  test.each(BROKEN)(
    '%s fails with the right rule',
    async (_what, edit, ruleId) => {
      const { code, report, stderr } = await checkAgainst(variant(edit));
      expect(code, stderr).toBe(1);
      expect(report!.findings.filter((finding) => finding.severity === 'error').map((finding) => finding.ruleId)).toContain(ruleId);
    },
    30_000,
  );
});

/**
 * What published servers send: every schema declares draft-07, and a destructive tool asks for a
 * required confirm string. Neither is wrong for a server that is not B2.
 */
describe('--pack generic on a server whose schemas declare draft-07 (raw JSON-RPC)', () => {
  const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
  const published = variant((s) => {
    for (const each of s.tools) (each.inputSchema as Record<string, unknown>).$schema = DRAFT_07;
    const deleting = tool(s, 'delete_note').inputSchema;
    deleting.properties.confirm = { type: 'string', enum: ['Y', 'y', 'Yes', 'yes'], description: 'Type Y to delete the note.' };
    deleting.required = [...(deleting.required ?? []), 'confirm'];
  });
  const command = SERVERS['raw JSON-RPC, 2025 era only'];
  let fixtures: string;
  beforeAll(async () => {
    fixtures = tempDir();
    const outcome = await runCli([
      'snapshot',
      '--pack',
      'generic',
      '--server',
      command(writeJson(tempDir(), 'surface.json', published)),
      '--out',
      fixtures,
    ]);
    expect(outcome.code, outcome.stderr).toBe(0);
  }, 30_000);
  const checkAgainst = async (surface: Surface) => {
    const outcome = await runCli([
      'check',
      '--pack',
      'generic',
      '--server',
      command(writeJson(tempDir(), 'surface.json', surface)),
      '--fixtures',
      fixtures,
      '--format',
      'json',
    ]);
    return { ...outcome, report: outcome.stdout ? (JSON.parse(outcome.stdout) as JsonReport) : undefined };
  };

  test('the unchanged server passes with zero findings (no crash on draft-07, no B2 confirm rule)', async () => {
    const { code, report, stderr } = await checkAgainst(published);
    expect(code, stderr).toBe(0);
    expect(report!.findings).toEqual([]);
  }, 30_000);

  test('a schema invalid in draft-07, and a change of dialect, are findings in a complete report', async () => {
    const changed = variant((s) => {
      for (const each of s.tools) (each.inputSchema as Record<string, unknown>).$schema = DRAFT_07;
      (tool(s, 'list_notes').inputSchema.properties.limit as Record<string, unknown>).exclusiveMinimum = true;
      (tool(s, 'create_note').inputSchema as Record<string, unknown>).$schema = 'https://json-schema.org/draft/2020-12/schema';
    });
    const { code, report, stderr } = await checkAgainst(changed);
    expect(code, stderr).toBe(1);
    const fired = report!.findings.map((finding) => finding.ruleId);
    expect(fired).toContain('schema/valid-in-dialect');
    expect(fired).toContain('diff/schema-dialect-changed');
  }, 30_000);
});
