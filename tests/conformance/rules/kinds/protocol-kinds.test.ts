import { describe, expect, it } from 'vitest';
import { CHECK_KINDS } from '../../../../src/conformance/rules/kinds/index.js';
import type { RuleContext } from '../../../../src/conformance/rules/types.js';
import { contextOf, publishedContract, ruleCheck } from '../../../support/rule-context.js';

/** The protocol kinds (rules/eras.json, rules/protocol.json) on hand-built connections. */
const CONTRACT = publishedContract();
const APPROVED = CONTRACT.approvedCacheHint!;

interface Look {
  connection: string;
  hash?: string;
  tools?: { name: string; [key: string]: unknown }[];
  prompts?: { names: string[]; hash: string; views: { name: string; [key: string]: unknown }[] } | null;
  observation?: Record<string, unknown>;
}

function connection({ connection, hash = 'h', tools = [], prompts = null, observation = {} }: Look) {
  return { connection, hash, tools, names: tools.map((tool) => tool.name), listed: tools, prompts, observation };
}

function runRule(file: string, id: string, looks: Look[], extra: Partial<RuleContext> = {}) {
  const { kind, ...params } = ruleCheck(file, id);
  return CHECK_KINDS[kind]!.run(params, contextOf([], { contract: CONTRACT, ...extra }, looks.map(connection) as never));
}

describe('eras-equal, tools (eras/modern-equals-legacy, eras/witness-equals-legacy)', () => {
  const a = { name: 'b2_a', description: 'a' };
  const b = { name: 'b2_b', description: 'b' };

  it('same hash: equal, whatever the listings say', () => {
    expect(
      runRule('eras', 'eras/modern-equals-legacy', [
        { connection: 'modern', tools: [a] },
        { connection: 'legacy', tools: [b] },
      ]),
    ).toEqual([]);
  });

  it('a connection that is missing is not compared', () => {
    expect(
      runRule('eras', 'eras/witness-equals-legacy', [
        { connection: 'legacy', hash: 'x' },
        { connection: 'modern', hash: 'y' },
      ]),
    ).toEqual([]);
    expect(
      runRule('eras', 'eras/witness-equals-legacy', [
        { connection: 'witness', hash: 'x' },
        { connection: 'modern', hash: 'y' },
      ]),
    ).toEqual([]);
  });

  it('names only one side has, and tools defined differently, are each named', () => {
    const looks = [
      { connection: 'modern', hash: 'm', tools: [a, { ...b, description: 'B' }, { name: 'b2_m', description: 'm' }] },
      { connection: 'legacy', hash: 'l', tools: [a, b, { name: 'b2_l', description: 'l' }, { name: 'b2_k', description: 'k' }] },
    ];
    expect(runRule('eras', 'eras/modern-equals-legacy', looks)).toEqual([
      {
        scope: 'modern/legacy',
        data: { a: 'modern', b: 'legacy', detail: 'only in modern: b2_m; only in legacy: b2_l, b2_k; defined differently: b2_b' },
      },
    ]);
  });

  it('a hash difference alone (no named difference) is still one finding', () => {
    expect(
      runRule('eras', 'eras/witness-equals-legacy', [
        { connection: 'witness', hash: 'w', tools: [a] },
        { connection: 'legacy', hash: 'l', tools: [a] },
      ]),
    ).toEqual([{ scope: 'witness/legacy', data: { a: 'witness', b: 'legacy', detail: '' } }]);
  });
});

describe('eras-equal, prompts (eras/prompts-modern-equals-legacy)', () => {
  const prompts = (hash: string, ...views: { name: string; [key: string]: unknown }[]) => ({
    names: views.map((view) => view.name),
    hash,
    views,
  });
  const run = (modern: Look['prompts'], legacy: Look['prompts']) =>
    runRule('eras', 'eras/prompts-modern-equals-legacy', [
      { connection: 'modern', hash: 'm', prompts: modern },
      { connection: 'legacy', hash: 'l', prompts: legacy },
    ]);

  it('neither advertises prompts, or both list the same (tool hashes do not matter): equal', () => {
    expect(run(null, null)).toEqual([]);
    expect(run(prompts('p', { name: 'x' }), prompts('p', { name: 'y' }))).toEqual([]);
  });

  it('only one side advertises prompts: named with the count, either way round', () => {
    expect(run(prompts('p', { name: 'x' }, { name: 'y' }), null)).toEqual([
      { scope: 'modern/legacy', data: { a: 'modern', b: 'legacy', detail: 'modern lists 2 prompts, legacy does not advertise prompts' } },
    ]);
    expect(run(null, prompts('p', { name: 'x' }))).toEqual([
      { scope: 'modern/legacy', data: { a: 'modern', b: 'legacy', detail: 'legacy lists 1 prompts, modern does not advertise prompts' } },
    ]);
  });

  it('different prompts: names only one side has and prompts defined differently', () => {
    const found = run(
      prompts('1', { name: 'x', title: 'X' }, { name: 'only-modern' }),
      prompts('2', { name: 'x', title: 'Y' }, { name: 'only-legacy' }),
    );
    expect(found).toEqual([
      {
        scope: 'modern/legacy',
        data: { a: 'modern', b: 'legacy', detail: 'only in modern: only-modern; only in legacy: only-legacy; defined differently: x' },
      },
    ]);
  });
});

describe('cache-hint-approved (protocol/tools-list-cache-hint, protocol/discover-cache-hint)', () => {
  const expected = `ttlMs ${APPROVED.ttlMs}, cacheScope ${APPROVED.cacheScope}`;
  const modern = (observation: Record<string, unknown>) => [{ connection: 'modern', observation }];

  it('the approved hint, on tools/list and on server/discover, conforms', () => {
    expect(runRule('protocol', 'protocol/tools-list-cache-hint', modern({ toolsListCacheHint: { ...APPROVED } }))).toEqual([]);
    expect(
      runRule(
        'protocol',
        'protocol/discover-cache-hint',
        modern({ discover: { supportedVersions: [], ttlMs: APPROVED.ttlMs, cacheScope: APPROVED.cacheScope } }),
      ),
    ).toEqual([]);
  });

  it.each([
    [{ ttlMs: APPROVED.ttlMs + 1, cacheScope: APPROVED.cacheScope }, `ttlMs ${APPROVED.ttlMs + 1}, cacheScope ${APPROVED.cacheScope}`],
    [{ ttlMs: APPROVED.ttlMs, cacheScope: 'public' }, `ttlMs ${APPROVED.ttlMs}, cacheScope public`],
    [null, 'none'],
  ])('tools/list hint %j is reported', (hint, actual) => {
    expect(runRule('protocol', 'protocol/tools-list-cache-hint', modern({ toolsListCacheHint: hint }))).toEqual([
      { scope: 'modern', path: 'modern.toolsListCacheHint', data: { source: 'tools/list', actual, expected } },
    ]);
  });

  it('a discover with another ttl, or none at all, is reported at modern.discover', () => {
    expect(
      runRule('protocol', 'protocol/discover-cache-hint', modern({ discover: { ttlMs: 1, cacheScope: APPROVED.cacheScope } })),
    ).toEqual([
      {
        scope: 'modern',
        path: 'modern.discover',
        data: { source: 'server/discover', actual: `ttlMs 1, cacheScope ${APPROVED.cacheScope}`, expected },
      },
    ]);
    expect(runRule('protocol', 'protocol/discover-cache-hint', modern({}))).toEqual([
      { scope: 'modern', path: 'modern.discover', data: { source: 'server/discover', actual: 'none', expected } },
    ]);
  });

  it('no modern connection, or a contract without an approved hint: nothing to judge', () => {
    expect(runRule('protocol', 'protocol/tools-list-cache-hint', [{ connection: 'legacy', observation: {} }])).toEqual([]);
    expect(
      runRule('protocol', 'protocol/tools-list-cache-hint', modern({}), {
        contract: { ...CONTRACT, approvedCacheHint: undefined } as never,
      }),
    ).toEqual([]);
  });
});

describe('discover-shape (protocol/discover)', () => {
  const { mustOffer, capability } = ruleCheck('protocol', 'protocol/discover') as unknown as { mustOffer: string; capability: string };
  const run = (discover: unknown) => runRule('protocol', 'protocol/discover', [{ connection: 'modern', observation: { discover } }]);
  const noVersion = {
    scope: 'modern',
    path: 'modern.discover.supportedVersions',
    key: 'version',
    data: { problem: `does not list ${mustOffer}` },
  };
  const noCapability = {
    scope: 'modern',
    path: `modern.discover.capabilities.${capability}`,
    key: 'capability',
    data: { problem: `has no "${capability}" capability object` },
  };

  it('offering the pinned revision and a tools capability object conforms', () => {
    expect(run({ supportedVersions: ['2025-11-25', mustOffer], capabilities: { [capability]: {} } })).toEqual([]);
  });

  it.each([
    [{ supportedVersions: ['2025-11-25'], capabilities: { [capability]: {} } }, [noVersion]],
    [{ supportedVersions: [mustOffer], capabilities: { [capability]: true } }, [noCapability]],
    [{ supportedVersions: [mustOffer], capabilities: { [capability]: null } }, [noCapability]],
    [{ supportedVersions: [mustOffer], capabilities: { [capability]: [] } }, [noCapability]],
    [{ supportedVersions: [mustOffer], capabilities: { resources: {} } }, [noCapability]],
    [{ supportedVersions: [mustOffer] }, [noCapability]],
    [undefined, [noVersion, noCapability]],
  ])('%j is reported', (discover, found) => {
    expect(run(discover)).toEqual(found);
  });

  it('no modern connection: nothing', () => {
    expect(runRule('protocol', 'protocol/discover', [{ connection: 'legacy', observation: {} }])).toEqual([]);
  });
});

describe('server-info-present (protocol/server-info)', () => {
  const run = (serverInfo: unknown) =>
    runRule('protocol', 'protocol/server-info', [
      { connection: 'modern', observation: { serverInfo } },
      { connection: 'witness', observation: { serverInfo: { name: 'n', version: '1' } } },
    ]);

  it('a name and a version conform, on every connection (the witness too)', () => {
    expect(run({ name: 'b2-mcp', version: '1.0.0' })).toEqual([]);
    expect(runRule('protocol', 'protocol/server-info', [{ connection: 'witness', observation: { serverInfo: { name: 'n' } } }])).toEqual([
      { scope: 'witness', path: 'serverInfo.version', key: 'version', data: { field: 'version' } },
    ]);
  });

  it.each([
    [{ name: 'b2-mcp', version: ' ' }, ['version']],
    [{ name: '', version: '1' }, ['name']],
    [{ name: 1, version: 1 }, ['name', 'version']],
    [null, ['name', 'version']],
  ])('%j is missing %j', (serverInfo, fields) => {
    expect(run(serverInfo)).toEqual(fields.map((field) => ({ scope: 'modern', path: `serverInfo.${field}`, key: field, data: { field } })));
  });
});
