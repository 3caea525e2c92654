import { describe, expect, it } from 'vitest';
import type { Change } from '../../../../src/conformance/diff/changes.js';
import { CHECK_KINDS } from '../../../../src/conformance/rules/kinds/index.js';
import type { RuleContext } from '../../../../src/conformance/rules/types.js';
import { contextOf, ruleCheck } from '../../../support/rule-context.js';

/**
 * The kinds that turn what other stages learned (changes, suppressions, probe and scenario
 * observations, the looks by other clients) into findings, run directly on hand-built inputs.
 */
function runKind(kind: string, params: Record<string, unknown>, extra: Partial<RuleContext>) {
  return CHECK_KINDS[kind]!.run(params, contextOf([], extra));
}

describe('diff-change', () => {
  const changes = (...list: Change[]) => list.map((change) => ({ scope: 'modern', change }));

  it('reports only the changes of its kind, with before/after shown and the path', () => {
    const found = runKind(
      'diff-change',
      { change: 'type-narrowed' },
      {
        changes: changes(
          { kind: 'type-narrowed', tool: 'b2_x_y', path: 'inputSchema.properties.a.type', before: 'number', after: 'integer' },
          { kind: 'type-widened', tool: 'b2_x_y', path: 'inputSchema.properties.b.type', before: 'integer', after: 'number' },
        ),
      },
    );
    expect(found).toEqual([
      {
        tool: 'b2_x_y',
        prompt: undefined,
        path: 'inputSchema.properties.a.type',
        scope: 'modern',
        key: undefined,
        data: { before: 'number', after: 'integer', where: ' at inputSchema.properties.a.type' },
        text: { before: 'number', after: 'integer' },
      },
    ]);
  });

  it('a change of the whole item has no path; absent and non-string values are shown, without a text diff', () => {
    const long = { words: 'x'.repeat(200) };
    const [found] = runKind(
      'diff-change',
      { change: 'schema-changed' },
      {
        changes: changes({
          kind: 'schema-changed',
          tool: 'b2_x_y',
          path: '',
          before: undefined,
          after: long,
          schemas: { before: 1, after: 2 },
        }),
      },
    );
    expect(found).toEqual({
      tool: 'b2_x_y',
      prompt: undefined,
      path: undefined,
      scope: 'modern',
      key: undefined,
      data: { before: 'absent', after: `${JSON.stringify(long).slice(0, 120)}…`, where: '' },
      schemas: { before: 1, after: 2 },
    });
    expect(JSON.stringify(long).length).toBeGreaterThan(120);
  });

  it('a prompt change names the prompt', () => {
    const [found] = runKind(
      'diff-change',
      { change: 'prompt-removed' },
      { changes: changes({ kind: 'prompt-removed', prompt: 'triage', path: '' }) },
    );
    expect(found).toMatchObject({
      tool: undefined,
      prompt: 'triage',
      path: undefined,
      data: { before: 'absent', after: 'absent', where: '' },
    });
  });

  it.each([
    [{ by: 'contract', reverted: false }, 'a rename the contract records', undefined],
    [{ by: 'contract', reverted: true }, 'back to its former name, which the contract retired', undefined],
    [{ by: 'definition' }, 'same definition', undefined],
    [{ by: 'spelling' }, 'the same words in another naming style', undefined],
    [undefined, 'same definition', undefined],
    [
      { by: 'similarity', confidence: 0.8, shared: 4, total: 5 },
      'recognised by similarity, confidence 0.8: same required inputs, 4 of 5 input names in common',
      0.8,
    ],
  ] as const)('a rename recognised by %j says "%s", is keyed by the former name and carries no text diff', (rename, basis, confidence) => {
    const [found] = runKind(
      'diff-change',
      { change: 'tool-renamed' },
      {
        changes: changes({
          kind: 'tool-renamed',
          tool: 'b2_new_name',
          path: '',
          before: 'b2_old_name',
          after: 'b2_new_name',
          ...(rename ? { rename } : {}),
        } as Change),
      },
    );
    expect(found).toEqual({
      tool: 'b2_new_name',
      prompt: undefined,
      path: undefined,
      scope: 'modern',
      key: 'b2_old_name',
      ...(confidence === undefined ? {} : { confidence }),
      data: { before: 'b2_old_name', after: 'b2_new_name', where: '', basis },
    });
  });
});

describe('stale-suppression and expired-suppression', () => {
  const suppressions = {
    stale: [{ index: 2, description: 'rule a on tool x' }],
    expired: [{ index: 0, description: 'rule b', expires: '2026-01-01' }],
    refused: [],
  };

  it('each stale suppression is one finding at its index', () => {
    expect(runKind('stale-suppression', {}, { suppressions })).toEqual([
      { path: 'suppressions[2]', key: 'rule a on tool x', data: { index: 2, suppression: 'rule a on tool x' } },
    ]);
  });

  it('each expired suppression is one finding with its date', () => {
    expect(runKind('expired-suppression', {}, { suppressions })).toEqual([
      { path: 'suppressions[0]', key: 'rule b', data: { index: 0, suppression: 'rule b', expires: '2026-01-01' } },
    ]);
  });

  it('no suppression stage: nothing', () => {
    expect(runKind('stale-suppression', {}, {})).toEqual([]);
    expect(runKind('expired-suppression', {}, {})).toEqual([]);
  });
});

describe('probe-observations (the gate-probe, write-probe, secret-probe ... rules)', () => {
  const { kind, ...params } = ruleCheck('gate-probe', 'gate-probe/refuses-without-confirm');
  const probes = (observations: unknown[]) => ({ probes: { observations } as never });

  it('a failed observation of the rule aspect is one finding in scope probes, keyed by aspect and variant', () => {
    const found = runKind(
      kind,
      params,
      probes([{ aspect: 'gate.unconfirmed', passed: false, tool: 'b2_delete_bucket', variant: 'no confirm', detail: 'ran' }]),
    );
    expect(found).toEqual([
      {
        tool: 'b2_delete_bucket',
        key: 'gate.unconfirmed\u0000no confirm',
        scope: 'probes',
        data: { detail: 'ran', variant: 'no confirm' },
      },
    ]);
  });

  it('passed observations and other aspects are not reported; a finding without tool or variant has neither', () => {
    const found = runKind(
      kind,
      params,
      probes([
        { aspect: 'gate.unconfirmed', passed: true, tool: 'b2_delete_bucket', detail: 'refused' },
        { aspect: 'gate.declined', passed: false, tool: 'b2_delete_bucket', detail: 'ran' },
        { aspect: 'gate.unconfirmed', passed: false, detail: 'whole run' },
      ]),
    );
    expect(found).toEqual([{ key: 'gate.unconfirmed\u0000', scope: 'probes', data: { detail: 'whole run', variant: '' } }]);
  });

  it('no probes ran: nothing', () => {
    expect(runKind(kind, params, {})).toEqual([]);
  });
});

describe('scenario-observations (the scenario rules)', () => {
  const { kind, ...params } = ruleCheck('scenario', 'scenario/assertion');
  const scenarios = (observations: unknown[]) => ({ scenarios: { calls: 1, observations } as never });

  it('an unmet expectation is one finding in scope scenarios, at its pointer, keyed by aspect and scenario', () => {
    expect(
      runKind(
        kind,
        params,
        scenarios([
          {
            aspect: 'scenario.assertion',
            passed: false,
            scenario: 'lists',
            tool: 'b2_list_buckets',
            pointer: '/buckets/0',
            detail: 'missing',
          },
        ]),
      ),
    ).toEqual([
      {
        tool: 'b2_list_buckets',
        path: '/buckets/0',
        key: 'scenario.assertion\u0000lists',
        scope: 'scenarios',
        data: { scenario: 'lists', detail: 'missing' },
      },
    ]);
  });

  it('met expectations and other aspects are not reported; without a pointer there is no path', () => {
    expect(
      runKind(
        kind,
        params,
        scenarios([
          { aspect: 'scenario.assertion', passed: true, scenario: 'a', tool: 't', detail: 'ok' },
          { aspect: 'scenario.golden', passed: false, scenario: 'b', tool: 't', detail: 'differs' },
          { aspect: 'scenario.assertion', passed: false, scenario: 'c', tool: 't', detail: 'no' },
        ]),
      ),
    ).toEqual([{ tool: 't', key: 'scenario.assertion\u0000c', scope: 'scenarios', data: { scenario: 'c', detail: 'no' } }]);
    expect(runKind(kind, params, {})).toEqual([]);
  });
});

describe('looks-equal (eras/surface-varies-by-client) and looks-refused', () => {
  const { kind, ...params } = ruleCheck('eras', 'eras/surface-varies-by-client');
  const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, description: `does ${name}`, ...extra });
  const look = (
    connection: string,
    era: string,
    listed: unknown[],
    extra: { hash?: string; instructions?: string; prompts?: unknown; capabilities?: Record<string, unknown> } = {},
  ) => ({
    connection,
    hash: extra.hash ?? 'h',
    listed,
    prompts: extra.prompts ?? null,
    observation: {
      era,
      instructions: extra.instructions,
      offeredVersion: `v-${connection}`,
      client: { package: '@sdk/client', version: '1.0.0' },
      identity: { clientInfo: { name: `client-${connection}`, version: '9' }, capabilities: extra.capabilities ?? {} },
    },
  });
  const reference = look('legacy', 'legacy', [tool('b2_a'), tool('b2_b')], { capabilities: { sampling: {}, elicitation: {} } });
  const run = (...others: unknown[]) => runKind(kind, params, { looks: [reference, ...others] as never });
  const presentedReference = 'client-legacy/9 (capabilities: elicitation, sampling; protocol v-legacy; @sdk/client)';

  it('looks that see what the reference sees conform; so does a judged look with another hash (the eras rule judges it)', () => {
    expect(run(look('legacy-2025-06-18', 'legacy', [tool('b2_b'), tool('b2_a')]))).toEqual([]);
    expect(run(look('modern', 'modern', [tool('b2_c')], { hash: 'other' }))).toEqual([]);
    expect(runKind(kind, params, {})).toEqual([]);
    expect(runKind(kind, { ...params, reference: 'witness' }, { looks: [reference, look('zed', 'legacy', [])] as never })).toEqual([]);
  });

  it('a compared-only look that sees other tools, another definition, other instructions and other prompts: one finding naming each', () => {
    const other = look('legacy-2025-03-26', 'legacy', [tool('b2_a', { description: 'changed', title: 'T' }), tool('b2_c')], {
      instructions: 'be careful',
      prompts: { names: ['triage'], listed: [{ name: 'triage' }] },
    });
    expect(run(other)).toEqual([
      {
        scope: 'legacy/legacy-2025-03-26',
        key: 'legacy-2025-03-26',
        data: {
          a: presentedReference,
          b: 'client-legacy-2025-03-26/9 (capabilities: none; protocol v-legacy-2025-03-26; @sdk/client)',
          detail:
            'only the first sees b2_b; only the second sees b2_c; defined differently: b2_a (description, title); the server instructions differ; the prompts differ (none / triage) (client capabilities: only the first declares elicitation, sampling)',
          tools: 'b2_b, b2_c, b2_a',
        },
      },
    ]);
  });

  it('names come sorted, whatever order the server lists them in: tools on one side only, differing tools, and their keys', () => {
    const first = look('legacy', 'legacy', [tool('b2_d'), tool('b2_c'), tool('b2_y'), tool('b2_x'), tool('b2_same')]);
    const second = look('legacy-2025-06-18', 'legacy', [
      tool('b2_f'),
      tool('b2_e'),
      tool('b2_y', { description: 'other' }),
      tool('b2_x', { title: 'X', annotations: { readOnlyHint: true }, description: 'other' }),
      tool('b2_same'),
    ]);
    const [found] = runKind(kind, params, { looks: [first, second] as never });
    expect(found!.data).toMatchObject({
      detail:
        'only the first sees b2_c, b2_d; only the second sees b2_e, b2_f; defined differently: b2_x (annotations, description, title); b2_y (description)',
      tools: 'b2_c, b2_d, b2_e, b2_f, b2_x, b2_y',
    });
  });

  it('each difference alone is a finding: a tool missing, a tool added, prompts gone', () => {
    expect(run(look('legacy-2025-06-18', 'legacy', [tool('b2_a')]))[0]!.data).toMatchObject({
      detail: 'only the first sees b2_b (client capabilities: only the first declares elicitation, sampling)',
      tools: 'b2_b',
    });
    expect(run(look('legacy-2025-06-18', 'legacy', [tool('b2_a'), tool('b2_b'), tool('b2_c')]))[0]!.data).toMatchObject({
      detail: 'only the second sees b2_c (client capabilities: only the first declares elicitation, sampling)',
      tools: 'b2_c',
    });
    const prompted = look('legacy', 'legacy', [tool('b2_a')], { prompts: { names: ['p', 'q'], listed: [{ name: 'p' }, { name: 'q' }] } });
    const [found] = runKind(kind, params, { looks: [prompted, look('legacy-2025-06-18', 'legacy', [tool('b2_a')])] as never });
    expect(found!.data).toMatchObject({ detail: 'the prompts differ (p, q / none)' });
  });

  it('a compared-only look is compared whatever its hash; a judged look of the same hash is compared in what the hash leaves out', () => {
    expect(run(look('legacy-2025-06-18', 'legacy', [tool('b2_a')], { hash: 'other' }))[0]!.data).toMatchObject({
      detail: 'only the first sees b2_b (client capabilities: only the first declares elicitation, sampling)',
    });
    expect(run(look('witness', 'legacy', [tool('b2_a', { title: 'A' }), tool('b2_b')]))[0]!.data).toMatchObject({
      detail: 'defined differently: b2_a (title) (client capabilities: only the first declares elicitation, sampling)',
      tools: 'b2_a',
    });
  });

  it('only the instructions differ: no tools named', () => {
    const [found] = run(look('legacy-2025-06-18', 'legacy', [tool('b2_a'), tool('b2_b')], { instructions: 'x' }));
    expect(found!.data).toMatchObject({
      detail: 'the server instructions differ (client capabilities: only the first declares elicitation, sampling)',
      tools: 'none',
    });
  });

  it('prompts are compared for compared-only looks, not for judged ones of the same hash', () => {
    const prompts = { names: ['p', 'q'], listed: [{ name: 'p' }, { name: 'q' }] };
    expect(run(look('witness', 'legacy', [tool('b2_a'), tool('b2_b')], { prompts }))).toEqual([]);
    const [found] = run(look('legacy-2025-06-18', 'legacy', [tool('b2_a'), tool('b2_b')], { prompts }));
    expect(found!.data).toMatchObject({
      detail: 'the prompts differ (none / p, q) (client capabilities: only the first declares elicitation, sampling)',
    });
  });

  it('between eras the era-specific keys are left out; within an era they count', () => {
    const withExecution = [tool('b2_a', { execution: { taskSupport: 'optional' } }), tool('b2_b')];
    expect(run(look('modern', 'modern', withExecution))).toEqual([]);
    const [found] = run(look('legacy-2025-06-18', 'legacy', withExecution));
    expect(found!.data).toMatchObject({
      detail: 'defined differently: b2_a (execution) (client capabilities: only the first declares elicitation, sampling)',
      tools: 'b2_a',
    });
  });

  it('looks-refused: one note per refused look, with the version, client and reason', () => {
    const refused = [
      {
        connection: 'legacy-2025-03-26',
        offeredVersion: '2025-03-26',
        identity: { name: 'zed', version: '0.1' },
        reason: 'unsupported protocol version',
      },
    ];
    expect(runKind('looks-refused', {}, { refused: refused as never })).toEqual([
      {
        scope: 'legacy-2025-03-26',
        key: 'legacy-2025-03-26',
        data: { version: '2025-03-26', client: 'zed/0.1', reason: 'unsupported protocol version' },
      },
    ]);
    expect(runKind('looks-refused', {}, {})).toEqual([]);
  });
});
