import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { buildToolFixture, serializeFixture, type ToolFixture } from '../../../src/contract/fixture.js';
import type { ListedTool } from '../../../src/contract/normalize.js';
import { diffExecution } from '../../../src/conformance/diff/diff.js';
import { ConformError } from '../../../src/conformance/errors.js';
import type { Finding } from '../../../src/conformance/rules/findings.js';
import { BUNDLED } from '../../../src/conformance/package-root.js';
import { render } from '../../../src/conformance/report/index.js';
import { shownValue } from '../../../src/conformance/rules/kinds/changes.js';
import { diffFixtureDirs } from '../../../src/conformance/commands/diff.js';
import type { RunResult } from '../../../src/conformance/report/evidence.js';
import { removeTempDirs, tempDir, writeJson } from '../../support/checker-harness.js';

/**
 * `diff` of two small repositories written here: fixture files of the shape any generation of the
 * contract tooling writes, and (optionally) a contract artifact beside them, in our layout or in
 * the older one. Each case is one kind of change a real contract history shows.
 */

afterAll(() => removeTempDirs());

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

/** A small catalogue of tools for a pretend photo-archive server. */
function albumTools(): ListedTool[] {
  return [
    {
      name: 'pa_list_albums',
      description: 'List the albums of the archive.',
      inputSchema: { type: 'object', properties: { limit: { type: 'integer' } } },
      annotations: READ,
    },
    {
      name: 'pa_delete_album',
      description: 'Delete an album and its photos.',
      inputSchema: { type: 'object', properties: { albumId: { type: 'string' }, confirm: { type: 'boolean' } }, required: ['albumId'] },
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
  ];
}

interface Side {
  /** Tools per profile; each profile gets a modern and a legacy fixture. */
  profiles: Record<string, ListedTool[]>;
  /** Edit each fixture before it is written (fields outside the hash only). */
  edit?: (fixture: ToolFixture) => void;
  /** The contract artifact written beside the fixtures, at docs/tool-profile-contract.json (the older layout). */
  contract?: unknown;
  capabilities?: string[] | null;
  sdk?: Record<string, string>;
  serverCapabilities?: Record<string, unknown> | null;
  /** Record each tool's description text (as a snapshot that is its own baseline does). */
  texts?: boolean;
}

/** Write one side as a repository; returns its fixtures directory. */
function repository(side: Side): string {
  const root = tempDir();
  writeJson(root, 'package.json', { name: 'photo-archive-mcp', private: true });
  const dir = join(root, 'tests', 'fixtures', 'tool-contract');
  mkdirSync(dir, { recursive: true });
  for (const [profile, tools] of Object.entries(side.profiles)) {
    for (const era of ['modern', 'legacy'] as const) {
      const fixture = buildToolFixture({
        profile,
        era,
        protocolVersion: '2026-07-28',
        transport: 'stdio',
        sdk: side.sdk ?? { '@modelcontextprotocol/server': '2.0.0' },
        capabilities: side.capabilities ?? null,
        tools,
        instructions: null,
        serverCapabilities: side.serverCapabilities === undefined ? { tools: {} } : side.serverCapabilities,
      });
      if (side.texts) fixture.descriptions = Object.fromEntries(tools.map((tool) => [tool.name, tool.description ?? '']));
      side.edit?.(fixture);
      writeJson(dir, `${profile}.${era}.json`, JSON.parse(serializeFixture(fixture)));
    }
  }
  if (side.contract !== undefined) {
    mkdirSync(join(root, 'docs'), { recursive: true });
    writeJson(join(root, 'docs'), 'tool-profile-contract.json', side.contract);
  }
  return dir;
}

/** A contract of the older shape: profiles only, no backing categories, cache hint or naming policy. */
function olderContract(
  profiles: Record<string, ListedTool[]>,
  extra: (profile: string) => Record<string, unknown> = () => ({}),
): Record<string, unknown> {
  return {
    contractVersion: 1,
    mcpRevision: '2026-07-28',
    sdk: { '@modelcontextprotocol/server': '2.0.0' },
    profiles: Object.fromEntries(
      Object.entries(profiles).map(([name, tools]) => [
        name,
        {
          description: `The ${name} profile.`,
          capabilities: null,
          counts: { total: tools.length },
          names: tools.map((tool) => tool.name).sort(),
          confirmTools: ['pa_delete_album'],
          hash: 'h',
          ...extra(name),
        },
      ]),
    ),
  };
}

function diff(before: Side, after: Side): RunResult {
  return diffFixtureDirs({ before: repository(before), after: repository(after), configFile: false });
}

const rulesOf = (result: RunResult) => [...new Set(result.findings.map((finding) => finding.ruleId))].sort();
const only = (result: RunResult, ruleId: string): Finding[] => result.findings.filter((finding) => finding.ruleId === ruleId);

describe('contracts of any generation', () => {
  test('a contract without toolBacking, approvedCacheHint or naming is read; what it lacks is a note, never an error', () => {
    const profiles = { everyday: albumTools() };
    const withBacking = {
      ...olderContract(profiles, () => ({ backingCounts: { native: 2 } })),
      toolBacking: { pa_list_albums: 'native', pa_delete_album: 'native' },
    };
    const result = diff({ profiles, contract: olderContract(profiles) }, { profiles, contract: withBacking });
    expect(result.findings).toEqual([]);
    expect(result.evidence.notes).toEqual([
      expect.stringMatching(/^toolBacking: not recorded in the older contract \(.*tool-profile-contract\.json\), not compared$/),
    ]);
  });

  test('with --contract naming the one to use, a broken contract beside a side is a note, not an error', () => {
    const profiles = { everyday: albumTools() };
    const result = diffFixtureDirs({
      before: repository({ profiles, contract: { version: 1 } }),
      after: repository({ profiles, contract: olderContract(profiles) }),
      contractFile: BUNDLED.contractFile,
      configFile: false,
    });
    expect(result.findings).toEqual([]);
    expect(result.evidence.notes).toEqual([
      expect.stringMatching(
        /^the contract artifacts were not compared: contract artifact .* cannot be used: needs a "profiles" object; name the contract to use with --contract FILE$/,
      ),
    ]);
  });

  test('a contract that cannot be used is an error that says how to name another', () => {
    const profiles = { everyday: albumTools() };
    const broken = () => diff({ profiles }, { profiles, contract: { profiles: { everyday: { description: 'no names' } } } });
    expect(broken).toThrow(ConformError);
    expect(broken).toThrow(/profile "everyday" needs "names" and "hash"; name the contract to use with --contract FILE/);
  });
});

describe('profiles on one side only', () => {
  const everyday = albumTools();
  const archivist = [
    ...albumTools(),
    { name: 'pa_restore_album', description: 'Restore a deleted album.', inputSchema: { type: 'object', properties: {} } },
  ];

  test('a profile added is one non-breaking finding over its files, which the evidence lists as after only', () => {
    const result = diff({ profiles: { everyday } }, { profiles: { everyday, archivist } });
    expect(rulesOf(result)).toEqual(['diff/profile-added']);
    const [finding] = result.findings;
    expect(finding).toMatchObject({ severity: 'warning', class: 'non-breaking', message: 'Profile archivist is new (3 tools)' });
    expect([...finding!.scopes].sort()).toEqual(['archivist.legacy', 'archivist.modern']);
    expect(result.evidence.target).toMatchObject({
      unmatched: ['archivist.legacy.json (after only)', 'archivist.modern.json (after only)'],
    });
  });

  test('a profile removed is a breaking error; an era missing from a profile both sides have is listed only', () => {
    const removed = diff({ profiles: { everyday, archivist } }, { profiles: { everyday } });
    expect(rulesOf(removed)).toEqual(['diff/profile-removed']);
    expect(removed.findings[0]).toMatchObject({
      severity: 'error',
      class: 'breaking',
      message: 'Profile archivist is gone (it had 3 tools)',
    });
    expect(removed.evidence.target).toMatchObject({
      unmatched: ['archivist.legacy.json (before only)', 'archivist.modern.json (before only)'],
    });
  });

  test.each(['pretty', 'markdown', 'sarif', 'junit', 'github', 'html'] as const)(
    'the added profile is named in the %s report',
    (format) => {
      const result = diff({ profiles: { everyday } }, { profiles: { everyday, archivist } });
      expect(render(format, result, { failOn: 'error', color: false })).toContain('Profile archivist is new');
    },
  );

  test('a profile renamed to another spelling of itself (phase1-default, default) is the same profile', () => {
    const result = diff(
      { profiles: { 'phase1-default': everyday }, contract: olderContract({ 'phase1-default': everyday }) },
      { profiles: { default: everyday }, contract: olderContract({ default: everyday }) },
    );
    expect(result.findings.map((finding) => [finding.ruleId, finding.message])).toEqual([
      ['contract/description-changed', 'Profile default: its description changed'],
    ]);
    expect(result.evidence.target).toMatchObject({ unmatched: [] });
  });

  test('a profile the contract adds without fixtures is the same finding, seen in the contract', () => {
    const result = diff(
      { profiles: { everyday }, contract: olderContract({ everyday }) },
      { profiles: { everyday }, contract: olderContract({ everyday, archivist }) },
    );
    expect(only(result, 'diff/profile-added').map((finding) => finding.scopes)).toEqual([['contract']]);
  });
});

describe('the contract artifact itself and the key capabilities are compared', () => {
  const profiles = { everyday: albumTools() };

  test('key capabilities gained by a profile are a warning that names them, from the fixtures and the contract alike', () => {
    const result = diff(
      {
        profiles,
        capabilities: ['listAlbums', 'readPhotos'],
        contract: olderContract(profiles, () => ({ capabilities: ['listAlbums', 'readPhotos'] })),
      },
      {
        profiles,
        capabilities: ['listAlbums', 'readPhotos', 'deleteAlbums'],
        contract: olderContract(profiles, () => ({ capabilities: ['listAlbums', 'readPhotos', 'deleteAlbums'] })),
      },
    );
    expect(rulesOf(result)).toEqual(['contract/key-capabilities-changed']);
    expect(result.findings[0]).toMatchObject({
      severity: 'warning',
      message: 'Profile everyday: key capabilities gained deleteAlbums; lost none',
    });
    expect([...result.findings[0]!.scopes].sort()).toEqual(['contract', 'everyday.legacy', 'everyday.modern']);
  });

  test('the SDK versions the fixtures were generated with are compared, one finding over the files and the contract', () => {
    const older = { '@modelcontextprotocol/server': '2.0.0', 'photo-sdk': '0.3.0' };
    const newer = { '@modelcontextprotocol/server': '2.0.0', 'photo-sdk': '0.4.0' };
    const result = diff(
      { profiles, sdk: older, contract: { ...olderContract(profiles), sdk: older } },
      { profiles, sdk: newer, contract: { ...olderContract(profiles), sdk: newer } },
    );
    expect(rulesOf(result)).toEqual(['contract/sdk-changed']);
    expect(result.findings[0]).toMatchObject({ severity: 'info', message: 'sdk["photo-sdk"] changed from 0.3.0 to 0.4.0' });
    expect([...result.findings[0]!.scopes].sort()).toEqual(['contract', 'everyday.legacy', 'everyday.modern']);
  });

  test("an SDK recorded on one side only says who wrote the file (a snapshot names the checker's client): no finding", () => {
    const generated = { '@modelcontextprotocol/client': '2.4.0', '@modelcontextprotocol/server': '2.4.0', 'photo-sdk': '0.3.0' };
    const snapshotted = { '@modelcontextprotocol/client': '2.4.0' };
    expect(rulesOf(diff({ profiles, sdk: generated }, { profiles, sdk: snapshotted }))).toEqual([]);
    expect(rulesOf(diff({ profiles, sdk: generated }, { profiles, sdk: { '@modelcontextprotocol/client': '2.5.0' } }))).toEqual([
      'contract/sdk-changed',
    ]);
  });

  test('a renamed tool keeps its confirm gate and backing under its new name: the rename is the one finding', () => {
    const renamed = albumTools().map((tool) => (tool.name === 'pa_delete_album' ? { ...tool, name: 'pa_remove_album' } : tool));
    const contractOf = (tools: ListedTool[], gated: string) => ({
      ...olderContract({ everyday: tools }, () => ({ confirmTools: [gated] })),
      toolBacking: Object.fromEntries(tools.map((tool) => [tool.name, 'native'])),
    });
    const result = diff(
      { profiles, contract: contractOf(albumTools(), 'pa_delete_album') },
      { profiles: { everyday: renamed }, contract: contractOf(renamed, 'pa_remove_album') },
    );
    expect(rulesOf(result)).toEqual(['diff/tool-renamed']);
  });

  test('description, confirm gates, counts, backing, naming, cache hint and SDKs of the contract are contract/* findings with before and after', () => {
    const naming = {
      prefixes: { native: 'pa_' },
      verbs: ['list', 'delete'],
      grandfathered: [],
      presign: { when: '^$', pattern: '^$' },
      renames: [],
    };
    const before = {
      ...olderContract(profiles),
      toolBacking: { pa_list_albums: 'native', pa_delete_album: 'native' },
      naming,
      approvedCacheHint: { ttlMs: 1000, cacheScope: 'private' },
    };
    const after = {
      ...olderContract(profiles, () => ({ description: 'Everyday use, without deletions.', confirmTools: [], counts: { total: 3 } })),
      sdk: { '@modelcontextprotocol/server': '2.1.0' },
      toolBacking: { pa_list_albums: 'cache', pa_delete_album: 'native' },
      naming: { ...naming, renames: [{ from: 'pa_albums', to: 'pa_list_albums' }] },
      approvedCacheHint: { ttlMs: 60_000, cacheScope: 'public' },
    };
    const result = diff({ profiles, contract: before }, { profiles, contract: after });
    const messages = Object.fromEntries(result.findings.map((finding) => [finding.ruleId, finding.message]));
    expect(messages).toEqual({
      'contract/description-changed': 'Profile everyday: its description changed',
      'contract/confirm-tool-removed': 'Profile everyday: pa_delete_album is no longer confirmation-gated',
      'contract/counts-changed': 'Profile everyday: profiles.everyday.counts changed from {"total":2} to {"total":3}',
      'contract/backing-changed': 'pa_list_albums: backing changed from native to cache',
      'contract/naming-changed': 'naming.renames changed from [] to [{"from":"pa_albums","to":"pa_list_albums"}]',
      'contract/cache-hint-changed':
        'The approved cache hint changed from {"ttlMs":1000,"cacheScope":"private"} to {"ttlMs":60000,"cacheScope":"public"}',
      'contract/sdk-changed': 'sdk["@modelcontextprotocol/server"] changed from 2.0.0 to 2.1.0',
    });
    expect(only(result, 'contract/description-changed')[0]!.text).toEqual({
      before: 'The everyday profile.',
      after: 'Everyday use, without deletions.',
    });
    expect(only(result, 'contract/confirm-tool-removed')[0]).toMatchObject({
      severity: 'error',
      class: 'breaking',
      tool: 'pa_delete_album',
    });
  });
});

describe('what a client sees beside the hash', () => {
  test('a field only the newer fixtures record is named in the evidence, not compared', () => {
    const profiles = { everyday: albumTools() };
    const result = diff(
      { profiles, edit: (fixture) => void delete fixture.titles },
      { profiles: { everyday: albumTools().map((tool) => ({ ...tool, title: 'A title' })) } },
    );
    expect(result.findings).toEqual([]);
    expect(result.evidence.notes).toEqual([
      'titles: not recorded in the older fixtures (everyday.legacy.json, everyday.modern.json), not compared',
    ]);
  });

  test('server capabilities, execution, icons and _meta changes carry their before and after', () => {
    const withExtras = (taskSupport: string, icon: string, tier: string): ListedTool[] =>
      albumTools().map((tool) =>
        tool.name === 'pa_list_albums'
          ? { ...tool, execution: { taskSupport }, icons: [{ src: icon }], _meta: { 'example.com/tier': tier } }
          : tool,
      );
    const result = diff(
      {
        profiles: { everyday: withExtras('optional', 'https://example.com/a.png', 'free') },
        serverCapabilities: { tools: {}, logging: {} },
      },
      {
        profiles: { everyday: withExtras('required', 'https://example.com/b.png', 'paid') },
        serverCapabilities: { tools: { listChanged: true }, resources: {} },
      },
    );
    const messages = result.findings.map((finding) => `${finding.ruleId}: ${finding.message}`).sort();
    expect(messages).toEqual([
      'diff/meta-changed: Tool pa_list_albums: _meta changed from {"example.com/tier":"free"} to {"example.com/tier":"paid"}',
      'diff/meta-changed: Tool pa_list_albums: icons changed from [{"src":"https://example.com/a.png"}] to [{"src":"https://example.com/b.png"}]',
      'diff/server-capability-added: The server now declares serverCapabilities.resources: {}',
      'diff/server-capability-changed: The server capability serverCapabilities.tools changed from {} to {"listChanged":true}',
      'diff/server-capability-removed: The server no longer declares serverCapabilities.logging (was {})',
      'diff/task-support-narrowed: Tool pa_list_albums: execution.taskSupport changed from optional to required',
    ]);
  });

  test.each([
    [undefined, { taskSupport: 'forbidden' }, 'meta-changed'],
    [{ taskSupport: 'forbidden' }, { taskSupport: 'optional' }, 'task-support-widened'],
    [{ taskSupport: 'required' }, { taskSupport: 'optional' }, 'task-support-widened'],
    [{ taskSupport: 'optional' }, undefined, 'task-support-narrowed'],
    [{ taskSupport: 'forbidden' }, { taskSupport: 'required' }, 'task-support-narrowed'],
  ])('execution %j → %j is %s (taskSupport absent is forbidden; spelling the default out is still named)', (before, after, kind) => {
    const found: string[] = [];
    diffExecution(before, after, (change, path, was, now) => found.push(`${change} ${path} ${shownValue(was)} → ${shownValue(now)}`));
    expect(found).toEqual([`${kind} execution.taskSupport ${shownValue(before?.taskSupport)} → ${shownValue(after?.taskSupport)}`]);
  });

  test('an output field removed breaks clients that read it; one added does not', () => {
    const output = (properties: Record<string, unknown>) =>
      albumTools().map((tool) => (tool.name === 'pa_list_albums' ? { ...tool, outputSchema: { type: 'object', properties } } : tool));
    const result = diff(
      { profiles: { everyday: output({ albums: { type: 'array' }, total: { type: 'integer' } }) } },
      { profiles: { everyday: output({ albums: { type: 'array' }, cursor: { type: 'string' } }) } },
    );
    expect(result.findings.map((finding) => [finding.ruleId, finding.severity, finding.path, finding.message])).toEqual([
      [
        'diff/output-field-removed',
        'error',
        'outputSchema.properties.total',
        'Tool pa_list_albums: output field outputSchema.properties.total was removed (was {"type":"integer"})',
      ],
      [
        'diff/output-field-added',
        'warning',
        'outputSchema.properties.cursor',
        'Tool pa_list_albums: output field outputSchema.properties.cursor is new: {"type":"string"}',
      ],
    ]);
  });
});

describe('renames and texts', () => {
  const camel: ListedTool = {
    name: 'getAlbumCover',
    description: 'Fetch the cover photo of an album.',
    inputSchema: { type: 'object', properties: { albumId: { type: 'string' } }, required: ['albumId'] },
  };

  test('the same words in another naming style are a rename, and the new description is shown in full', () => {
    const kebab: ListedTool = {
      ...camel,
      name: 'get-album-cover',
      description: 'Fetch the cover photo of an album, resized.',
      inputSchema: { type: 'object', properties: { albumId: { type: 'string' }, size: { type: 'integer' } }, required: ['albumId'] },
    };
    const result = diff({ profiles: { everyday: [camel] }, texts: true }, { profiles: { everyday: [kebab] }, texts: true });
    expect(result.findings.map((finding) => [finding.ruleId, finding.message])).toEqual([
      ['diff/tool-renamed', 'Tool getAlbumCover is now get-album-cover (the same words in another naming style)'],
      ['diff/description-changed', 'Tool get-album-cover: text at description changed'],
      ['diff/property-added', 'Tool get-album-cover: optional input inputSchema.properties.size is new: {"type":"integer"}'],
    ]);
    expect(only(result, 'diff/description-changed')[0]!.text).toEqual({ before: camel.description, after: kebab.description });
    // The evidence speaks of the rename too, not of one tool added and another removed.
    expect(result.evidence.hashes['everyday.modern']!.drift).toEqual({
      status: 'tool-set-differs',
      added: [],
      removed: [],
      renamed: [{ from: 'getAlbumCover', to: 'get-album-cover' }],
    });
    expect(render('pretty', result, { failOn: 'error', color: false, verbose: true })).toContain(
      'the tool set differs (renamed getAlbumCover → get-album-cover)',
    );
  });

  test('text added where there was none is carried whole; an added tool carries its description', () => {
    const described = {
      ...camel,
      inputSchema: {
        type: 'object',
        properties: { albumId: { type: 'string', description: 'Album id, as pa_list_albums returns it.' } },
        required: ['albumId'],
      },
    };
    const extra: ListedTool = {
      name: 'pa_share_album',
      description: 'Share an album by link.',
      inputSchema: { type: 'object', properties: {} },
    };
    const result = diff({ profiles: { everyday: [camel] }, texts: true }, { profiles: { everyday: [described, extra] }, texts: true });
    expect(only(result, 'diff/description-changed')[0]).toMatchObject({
      path: 'inputSchema.properties.albumId.description',
      text: { after: 'Album id, as pa_list_albums returns it.' },
    });
    expect(only(result, 'diff/tool-added')[0]!.text).toEqual({ after: 'Share an album by link.' });
  });

  test('an empty string is shown as "", an absent value as absent, a long one bounded with an ellipsis', () => {
    expect(shownValue('')).toBe('""');
    expect(shownValue(undefined)).toBe('absent');
    expect(shownValue('x'.repeat(200))).toBe(`${'x'.repeat(120)}…`);
  });
});
