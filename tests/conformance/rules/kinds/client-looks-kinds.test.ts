import { describe, expect, it } from 'vitest';
import { CHECK_KINDS } from '../../../../src/conformance/rules/kinds/index.js';
import type { RuleContext } from '../../../../src/conformance/rules/types.js';
import { snapshotTools } from '../../../../src/contract/normalize.js';
import { diffTools } from '../../../../src/conformance/diff/diff.js';
import { protocolVersionsOf, recordedSurface, recordLooks } from '../../../../src/conformance/snapshot/manifest.js';
import { contextOf, ruleCheck } from '../../../support/rule-context.js';

/**
 * The looks by other clients compared with each other and with what the snapshot recorded of
 * them: capability sets, protocol versions, eras refused, and what the SDK clients accept.
 */
function runKind(kind: string, params: Record<string, unknown>, extra: Partial<RuleContext>) {
  return CHECK_KINDS[kind]!.run(params, contextOf([], extra));
}

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `does ${name}`,
  inputSchema: { type: 'object' },
  ...extra,
});
const NONE = {};
const ROOTS = { roots: {} };
const ELICITATION = { elicitation: {} };
const SAMPLING = { sampling: {} };

function look(
  connection: string,
  listed: unknown[],
  capabilities: Record<string, unknown>,
  versions: { offered?: string; negotiated?: string } = {},
) {
  return {
    connection,
    hash: connection,
    listed,
    prompts: null,
    observation: {
      era: connection === 'modern' ? 'modern' : 'legacy',
      instructions: null,
      offeredVersion: versions.offered ?? '2025-11-25',
      protocolVersion: versions.negotiated ?? versions.offered ?? '2025-11-25',
      client: { package: '@sdk/client', version: '1.0.0' },
      identity: { clientInfo: { name: `client-${connection}`, version: '9' }, capabilities },
    },
  };
}

/** A server like server-everything: get-roots-list only for roots clients, trigger-elicitation only for elicitation clients. */
function gatingServer(extra: { echo?: Record<string, unknown>; samplingTool?: Record<string, unknown> } = {}) {
  const shown = (capabilities: Record<string, unknown>) => [
    tool('echo', extra.echo),
    ...('roots' in capabilities ? [tool('get-roots-list')] : []),
    ...('elicitation' in capabilities ? [tool('trigger-elicitation')] : []),
    ...('sampling' in capabilities && extra.samplingTool ? [tool('trigger-sampling', extra.samplingTool)] : []),
  ];
  return [
    look('legacy', shown({ ...ROOTS, ...ELICITATION }), { ...ROOTS, ...ELICITATION }),
    look('witness', shown({ ...ROOTS, ...ELICITATION }), { ...ROOTS, ...ELICITATION }),
    look('legacy-2025-06-18', shown(ROOTS), ROOTS, { offered: '2025-06-18' }),
    look('legacy-2025-03-26', shown(NONE), NONE, { offered: '2025-03-26' }),
    look('legacy-2024-11-05', shown(NONE), NONE, { offered: '2024-11-05' }),
    look('legacy-sampling', shown(SAMPLING), SAMPLING),
    look('legacy-elicitation', shown(ELICITATION), ELICITATION),
  ];
}

describe('looks-equal by capability set (generic: eras/surface-varies-by-identity) and across all (b2: eras/surface-varies-by-client)', () => {
  const generic = ruleCheck('eras', 'eras/surface-varies-by-identity');
  const b2 = ruleCheck('eras', 'eras/surface-varies-by-client');
  const run = (check: typeof generic, looks: unknown[]) => runKind(check.kind, check, { looks: looks as never });

  it('generic: tools shown only to clients that declare a capability are no difference between identities', () => {
    expect(run(generic, gatingServer())).toEqual([]);
  });

  it('generic: two clients with the same capabilities shown different tools are an error, whatever their names and protocol versions', () => {
    const looks = gatingServer();
    looks[4] = look('legacy-2024-11-05', [tool('echo'), tool('export-keys')], NONE, { offered: '2024-11-05' });
    const found = run(generic, looks);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      scope: 'legacy-2025-03-26/legacy-2024-11-05',
      data: { detail: 'only the second sees export-keys', tools: 'export-keys' },
    });
  });

  it('b2: every difference stays an error, and names the capabilities that made it', () => {
    const found = run(b2, gatingServer());
    const details = Object.fromEntries(found.map((finding) => [finding.key, finding.data!.detail]));
    expect(details).toEqual({
      'legacy-2025-06-18': 'only the first sees trigger-elicitation (client capabilities: only the first declares elicitation)',
      'legacy-2025-03-26':
        'only the first sees get-roots-list, trigger-elicitation (client capabilities: only the first declares elicitation, roots)',
      'legacy-2024-11-05':
        'only the first sees get-roots-list, trigger-elicitation (client capabilities: only the first declares elicitation, roots)',
      'legacy-sampling':
        'only the first sees get-roots-list, trigger-elicitation (client capabilities: only the first declares elicitation, roots; only the second declares sampling)',
      'legacy-elicitation': 'only the first sees get-roots-list (client capabilities: only the first declares roots)',
    });
  });
});

describe('what the snapshot records of each capability set, and the surface rebuilt from it', () => {
  /** The looks as `check` holds them: listed tools, and normalized as in a fixture. */
  const normalized = (looks: ReturnType<typeof gatingServer>) =>
    looks.map((entry) => ({ ...entry, ...snapshotTools(entry.listed as never) }));
  const rebuilt = (looks: ReturnType<typeof gatingServer>) => {
    const surfaces = normalized(looks);
    const records = recordLooks(surfaces as never);
    const reference = surfaces.find((entry) => entry.connection === 'legacy')!;
    return Object.fromEntries(
      Object.entries(records).map(([connection, record]) => [
        connection,
        recordedSurface(record!, reference.tools).map((tool) => tool.name),
      ]),
    );
  };

  it('each compared look is recorded against the reference: the tools it alone is shown, and the ones it is not shown', () => {
    const records = recordLooks(normalized(gatingServer({ samplingTool: {} })) as never);
    expect(
      Object.fromEntries(
        Object.entries(records).map(([connection, record]) => [
          connection,
          { capabilities: record!.capabilities, own: record!.ownTools.map((tool) => tool.name), notShown: record!.notShown },
        ]),
      ),
    ).toEqual({
      'legacy-2025-06-18': { capabilities: ['roots'], own: [], notShown: ['trigger-elicitation'] },
      'legacy-2025-03-26': { capabilities: [], own: [], notShown: ['get-roots-list', 'trigger-elicitation'] },
      'legacy-2024-11-05': { capabilities: [], own: [], notShown: ['get-roots-list', 'trigger-elicitation'] },
      'legacy-sampling': { capabilities: ['sampling'], own: ['trigger-sampling'], notShown: ['get-roots-list', 'trigger-elicitation'] },
      'legacy-elicitation': { capabilities: ['elicitation'], own: [], notShown: ['get-roots-list'] },
    });
  });

  it('the surface each client was shown is rebuilt exactly from the reference fixture and the record', () => {
    const looks = gatingServer({ samplingTool: {} });
    expect(rebuilt(looks)).toEqual(
      Object.fromEntries(
        looks
          .filter((entry) => !['legacy', 'witness'].includes(entry.connection))
          .map((entry) => [entry.connection, (entry.listed as { name: string }[]).map((tool) => tool.name).sort()]),
      ),
    );
  });

  it('diffed against it, a tool shown only to sampling clients is compared like any other: added, changed, removed', () => {
    const then = normalized(gatingServer({ samplingTool: {} }));
    const record = recordLooks(then as never)['legacy-sampling']!;
    const referenceTools = then.find((entry) => entry.connection === 'legacy')!.tools;
    const nowOf = (extra: Parameters<typeof gatingServer>[0]) =>
      normalized(gatingServer(extra)).find((entry) => entry.connection === 'legacy-sampling')!.tools;
    const kinds = (now: ReturnType<typeof nowOf>) =>
      diffTools(recordedSurface(record, referenceTools), now).map(
        (change) => `${change.kind} ${change.tool}${change.path ? ` ${change.path}` : ''}`,
      );
    expect(kinds(nowOf({ samplingTool: {} }))).toEqual([]);
    expect(kinds(nowOf({}))).toEqual(['tool-removed trigger-sampling']);
    expect(
      kinds(nowOf({ samplingTool: { inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] } } })),
    ).toEqual(['required-added trigger-sampling inputSchema.properties.prompt']);
  });
});

describe('protocol versions and eras', () => {
  it('the snapshot records each version accepted as offered, and the others with why', () => {
    const looks = [
      look('legacy', [], NONE, { offered: '2025-11-25', negotiated: '2024-11-05' }),
      look('legacy-2024-11-05', [], NONE, { offered: '2024-11-05' }),
    ];
    const refused = [
      {
        connection: 'modern',
        offeredVersion: '2026-07-28',
        identity: { name: 'a', version: '1' },
        reason: 'server does not offer MCP 2026-07-28 (modern era) via server/discover',
      },
      {
        connection: 'legacy',
        offeredVersion: '2025-11-25',
        identity: { name: 'a', version: '1' },
        reason: 'it answered with MCP 2024-11-05',
        chosenVersion: '2024-11-05',
      },
    ];
    expect(protocolVersionsOf(looks as never, refused as never)).toEqual({
      accepted: ['2024-11-05'],
      notAccepted: [
        { version: '2026-07-28', reason: 'server does not offer MCP 2026-07-28 (modern era) via server/discover' },
        { version: '2025-11-25', reason: 'it answered with MCP 2024-11-05' },
      ],
    });
  });

  it('versions-as-snapshot: a version accepted at the snapshot and answered with another now is an error naming both', () => {
    const check = ruleCheck('eras', 'eras/protocol-version-dropped');
    const snapshot = {
      pack: 'generic',
      profile: 'default',
      eras: ['legacy' as const],
      notOffered: [],
      protocolVersions: { accepted: ['2025-11-25', '2025-06-18'], notAccepted: [] },
    };
    const looks = [look('legacy', [], NONE), look('legacy-2025-06-18', [], ROOTS, { offered: '2025-06-18', negotiated: '2025-11-25' })];
    const refused = [
      {
        connection: 'legacy-2025-06-18',
        offeredVersion: '2025-06-18',
        identity: { name: 'a', version: '1' },
        reason: 'it answered with MCP 2025-11-25',
        chosenVersion: '2025-11-25',
      },
    ];
    expect(runKind(check.kind, check, { looks: looks as never, refused: refused as never, snapshot })).toEqual([
      { scope: 'legacy-2025-06-18', key: '2025-06-18', data: { version: '2025-06-18', reason: 'it answered with MCP 2025-11-25' } },
    ]);
    expect(
      runKind(check.kind, check, {
        looks: looks.slice(0, 1) as never,
        snapshot: { ...snapshot, protocolVersions: { accepted: ['2025-11-25'], notAccepted: [] } },
      }),
    ).toEqual([]);
  });

  it('eras-refused: a judged connection refused for its era is a finding; a compared one, or one answered in another version, is not', () => {
    const check = ruleCheck('eras', 'eras/era-offered');
    const refused = [
      {
        connection: 'modern',
        offeredVersion: '2026-07-28',
        identity: { name: 'a', version: '1' },
        reason: 'server does not offer MCP 2026-07-28 (modern era) via server/discover',
      },
      {
        connection: 'legacy',
        offeredVersion: '2025-11-25',
        identity: { name: 'a', version: '1' },
        reason: 'it answered with MCP 2024-11-05',
        chosenVersion: '2024-11-05',
      },
      { connection: 'legacy-2025-03-26', offeredVersion: '2025-03-26', identity: { name: 'a', version: '1' }, reason: 'unsupported' },
    ];
    expect(runKind(check.kind, check, { refused: refused as never })).toEqual([
      {
        scope: 'modern',
        key: 'modern',
        data: { era: 'modern', version: '2026-07-28', reason: 'server does not offer MCP 2026-07-28 (modern era) via server/discover' },
      },
    ]);
    const notes = runKind('looks-refused', {}, { refused: refused as never });
    expect(notes.map((note) => note.key)).toEqual(['legacy', 'legacy-2025-03-26']);
  });
});

describe('sdk-accepts-tools (protocol/tool-accepted)', () => {
  const check = ruleCheck('protocol', 'protocol/tool-accepted');
  const judged = (listed: unknown[]) =>
    runKind(check.kind, check, { surfaces: [{ connection: 'legacy', hash: 'h', listed, names: [], tools: [] }] as never });

  it('a schema with only a dialect and no type, and a malformed field, are named with the clients that refuse them', () => {
    const found = judged([
      tool('fine'),
      { name: 'read_file', description: 'reads', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } },
      { name: 'bad_annotations', inputSchema: { type: 'object' }, annotations: { readOnlyHint: 'yes' } },
    ]);
    expect(found.map((finding) => [finding.tool, finding.path])).toEqual([
      ['read_file', 'inputSchema.type'],
      ['bad_annotations', 'annotations.readOnlyHint'],
    ]);
    expect(found[0]!.data!.clients).toBe(
      'the 2.x SDK client (@modelcontextprotocol/client) and the 1.x SDK client (@modelcontextprotocol/sdk)',
    );
  });

  it('tools every SDK client accepts are no finding', () => {
    expect(judged([tool('a'), tool('b', { outputSchema: { type: 'object' }, annotations: { readOnlyHint: true } })])).toEqual([]);
  });
});
