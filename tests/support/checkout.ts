/**
 * A small checkout of a B2 MCP server written by a test: fixtures of two profiles in both eras,
 * the contract artifact, the generated profile reference, a README, a skill playbook and a plugin
 * manifest, all consistent with each other. `layout: 'upstream'` writes upstream's paths and a
 * profile reference in another generator's format. Tests then break one artifact at a time.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ContractArtifact, ContractProfile } from '../../src/contract/artifact.js';
import { BACKING_CATEGORIES, type BackingCategory } from '../../src/contract/constants.js';
import { buildToolFixture, serializeFixture, toolFixtureFileName, type ToolFixture } from '../../src/contract/fixture.js';
import type { ListedTool } from '../../src/contract/normalize.js';
import { renderProfilesDoc } from '../../src/contract/profiles-doc.js';
import { tempDir } from './checker-harness.js';

const OBJECT = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' } as const;

/** Six tools: three native, two S3, one analytics; one of them gated by `confirm`. */
const CHECKOUT_TOOLS: (ListedTool & { backing: BackingCategory })[] = [
  {
    name: 'b2_authorize_account',
    backing: 'nativeB2Sdk',
    description: 'Reports which account and capabilities the key has.',
    inputSchema: { ...OBJECT, properties: {} },
  },
  {
    name: 'b2_list_buckets',
    backing: 'nativeB2Sdk',
    description: 'Lists the buckets of the account.',
    inputSchema: { ...OBJECT, properties: { limit: { type: 'integer' } } },
  },
  {
    name: 'b2_delete_bucket',
    backing: 'nativeB2Sdk',
    description: 'Deletes an empty bucket after confirmation.',
    inputSchema: { ...OBJECT, properties: { bucketId: { type: 'string' }, confirm: { type: 'boolean' } }, required: ['bucketId'] },
  },
  {
    name: 's3_get_object',
    backing: 'awsS3Sdk',
    description: 'Reads one object.',
    inputSchema: { ...OBJECT, properties: { bucket: { type: 'string' }, key: { type: 'string' } }, required: ['key', 'bucket'] },
  },
  {
    name: 's3_put_object',
    backing: 'awsS3Sdk',
    description: 'Writes one object.',
    inputSchema: { ...OBJECT, properties: { bucket: { type: 'string' }, key: { type: 'string' } }, required: ['bucket', 'key'] },
  },
  {
    name: 'b2_list_largest_files',
    backing: 'customMcp',
    description: 'Ranks the largest files of a bucket.',
    inputSchema: { ...OBJECT, properties: { bucket: { type: 'string' } }, required: ['bucket'] },
  },
];

const CHECKOUT_PROFILES: Record<string, string[]> = {
  full: CHECKOUT_TOOLS.map((tool) => tool.name),
  'read-only': ['b2_authorize_account', 'b2_list_buckets', 's3_get_object', 'b2_list_largest_files'],
};

const RENAMES = [{ from: 'b2_largest_files', to: 'b2_list_largest_files' }];

export function fixtureOf(profile: string, era: 'modern' | 'legacy', names: readonly string[] = CHECKOUT_PROFILES[profile]!): ToolFixture {
  return buildToolFixture({
    profile,
    era,
    protocolVersion: '2026-07-28',
    transport: 'streamable-http',
    sdk: { demo: '1.0.0' },
    capabilities: null,
    tools: CHECKOUT_TOOLS.filter((tool) => names.includes(tool.name)).map(({ backing: _backing, ...tool }) => tool),
    instructions: null,
    serverCapabilities: null,
  });
}

function artifactOf(fixturesDir: string): ContractArtifact {
  const toolBacking = Object.fromEntries(CHECKOUT_TOOLS.map((tool) => [tool.name, tool.backing])) as Record<string, BackingCategory>;
  const profiles = Object.fromEntries(
    Object.keys(CHECKOUT_PROFILES).map((profile): [string, ContractProfile] => {
      const fixture = fixtureOf(profile, 'modern');
      const backingCounts = { nativeB2Sdk: 0, awsS3Sdk: 0, customMcp: 0 };
      for (const name of fixture.names) backingCounts[toolBacking[name]!] += 1;
      return [
        profile,
        {
          description: `The ${profile} surface of the demo server.`,
          capabilities: null,
          counts: fixture.counts,
          backingCounts,
          names: fixture.names,
          requiredFields: fixture.requiredFields,
          confirmTools: fixture.confirmTools,
          hash: fixture.hash,
          fixtures: { modern: `${fixturesDir}/${profile}.modern.json`, legacy: `${fixturesDir}/${profile}.legacy.json` },
        },
      ];
    }),
  );
  return {
    contractVersion: 1,
    issue: 1,
    mcpRevision: '2026-07-28',
    approvedCacheHint: { ttlMs: 30_000, cacheScope: 'private' },
    sdk: { demo: '1.0.0' },
    backingCategories: BACKING_CATEGORIES,
    toolBacking,
    profiles: profiles as ContractArtifact['profiles'],
    naming: {
      prefixes: { nativeB2Sdk: 'b2_', awsS3Sdk: 's3_', customMcp: 'b2_' },
      verbs: ['authorize', 'delete', 'get', 'list', 'put'],
      grandfathered: [],
      presign: { when: 'presign', pattern: '^s3_get_presigned(_[a-z0-9]+)*_url$' },
      renames: RENAMES,
    },
  };
}

/** A profile reference as another generator writes it: bullets per backing category and a list per prefix. */
function otherGeneratorDoc(artifact: ContractArtifact): string {
  const lines = [
    '<!-- Written by the demo generator. -->',
    '',
    '# Profiles',
    '',
    '| Profile | Total | `b2_*` | `s3_*` | `bz_*` | Hash prefix |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const [name, profile] of Object.entries(artifact.profiles))
    lines.push(
      `| \`${name}\` | ${profile.counts.total} | ${profile.counts.b2} | ${profile.counts.s3} | ${profile.counts.bz} | \`${profile.hash.slice(0, 12)}\` |`,
    );
  for (const [name, profile] of Object.entries(artifact.profiles)) {
    lines.push('', `## \`${name}\``, '', `Profile hash: \`${profile.hash}\``, '', '### Backing Categories', '');
    for (const [category, { label }] of Object.entries(artifact.backingCategories))
      lines.push(`- ${label}: ${profile.backingCounts[category as BackingCategory]}`);
    for (const prefix of ['b2', 's3']) {
      const names = profile.names.filter((tool) => tool.startsWith(`${prefix}_`));
      lines.push('', `### \`${prefix}_*\` Tools (${names.length})`, '', ...names.map((tool) => `- \`${tool}\``));
    }
  }
  return `${lines.join('\n')}\n`;
}

export interface Checkout {
  root: string;
  fixturesDir: string;
  contractFile: string;
  referenceDoc: string;
  /** Path inside the checkout → text. */
  read(path: string): string;
  write(path: string, text: string): void;
  /** Replace the first occurrence of a text in a file (the replaced text must be there). */
  edit(path: string, from: string, to: string): void;
  /** The 1-based line of the first line containing a text (below the first line containing `after`, when given). */
  lineOf(path: string, text: string, after?: string): number;
}

export function writeCheckout(layout: 'ours' | 'upstream' = 'ours'): Checkout {
  const root = tempDir();
  const fixturesDir = layout === 'ours' ? 'fixtures/tool-contract' : 'tests/fixtures/tool-contract';
  const contractFile = layout === 'ours' ? 'docs/generated/tool-profile-contract.json' : 'docs/tool-profile-contract.json';
  const referenceDoc = layout === 'ours' ? 'docs/generated/tool-profiles.md' : 'docs/TOOL_PROFILES.md';
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const read = (path: string) => readFileSync(join(root, path), 'utf8');
  for (const profile of Object.keys(CHECKOUT_PROFILES)) {
    for (const era of ['modern', 'legacy'] as const)
      write(`${fixturesDir}/${toolFixtureFileName(profile, era)}`, serializeFixture(fixtureOf(profile, era)));
  }
  const artifact = artifactOf(fixturesDir);
  write(contractFile, serializeFixture(artifact));
  write(referenceDoc, layout === 'ours' ? renderProfilesDoc(artifact) : otherGeneratorDoc(artifact));
  write(
    'README.md',
    [
      '# Demo B2 MCP server',
      '',
      'It serves 6 tools in the `full` profile and 4 in `read-only`; the `read-only` (4) profile only reads.',
      '',
      'Start with `b2_authorize_account`, then `b2_list_buckets`.',
      '',
      'Backing: **Native B2 API client (in-repo) (3)**, AWS S3 SDK (2), Neither SDK: 1.',
      '',
    ].join('\n'),
  );
  write(
    'docs/usage.md',
    [
      '# Usage',
      '',
      '| Profile | Tools |',
      '| --- | ---: |',
      '| `full` | 6 |',
      '| `read-only` | 4 |',
      '',
      'Your client may show fewer than 6 tools: `tools/list` reports 4 for a read-only key, and the full 6 with every capability.',
      '',
    ].join('\n'),
  );
  write(
    'skills/cleanup/SKILL.md',
    [
      '# Cleanup',
      '',
      '1. Call `b2_list_largest_files` for the bucket.',
      '2. Delete with `b2_delete_bucket` once it is empty (it asks for confirmation).',
      '',
    ].join('\n'),
  );
  write('demo.plugin.json', `${JSON.stringify({ name: 'demo', tools: CHECKOUT_PROFILES.full!.map((name) => ({ name })) }, null, 2)}\n`);
  return {
    root,
    fixturesDir,
    contractFile,
    referenceDoc,
    read,
    write,
    edit(path, from, to) {
      const text = read(path);
      if (!text.includes(from)) throw new Error(`${path} does not contain ${from}`);
      write(path, text.replace(from, to));
    },
    lineOf(path, text, after) {
      const lines = read(path).split('\n');
      const from = after === undefined ? 0 : lines.findIndex((line) => line.includes(after));
      const index = lines.findIndex((line, position) => position > from - (after === undefined ? 1 : 0) && line.includes(text));
      if (index === -1) throw new Error(`${path} has no line containing ${text}`);
      return index + 1;
    },
  };
}
