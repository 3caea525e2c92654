import { describe, expect, it } from 'vitest';
import { namingPolicyFor } from '../../../../src/conformance/diff/naming-policy.js';
import { NAME_KINDS } from '../../../../src/conformance/rules/kinds/names.js';
import type { RuleContext } from '../../../../src/conformance/rules/types.js';
import { contextOf, named, publishedContract, ruleCheck, surface } from '../../../support/rule-context.js';

/**
 * The naming kinds, run directly on hand-built listings. Oracles: the naming policy the contract
 * artifact publishes (docs/generated/tool-profile-contract.json) and the rule data in
 * rules/naming.json, never the kinds' own code.
 */
const CONTRACT = publishedContract();
const POLICY = CONTRACT.naming!;
const BOTH = ['modern', 'legacy'];
const naming = namingPolicyFor(CONTRACT, CONTRACT);
const { kind: _kind, ...SNAKE_CASE } = ruleCheck('naming', 'naming/snake-case');

function run(kind: string, names: string[], params: Record<string, unknown> = {}, extra: Partial<RuleContext> = {}) {
  return NAME_KINDS[kind]!.run(params, contextOf(named(...names), { naming, contract: CONTRACT, ...extra }));
}

describe('name-pattern (naming/snake-case)', () => {
  it.each(['b2_list_buckets', 's3_get_presigned_url', 'b2_list_largest_files', 'b2_get_file_info_by_name', 's3_put_object_v2'])(
    '%s conforms',
    (name) => {
      expect(run('name-pattern', [name], SNAKE_CASE)).toEqual([]);
    },
  );

  it.each([
    'b2_list',
    'B2_list_buckets',
    'b2_List_buckets',
    'b2-list-buckets',
    'b2_list_buckets_',
    '_b2_list_buckets',
    'b2__list_buckets',
    '2b_list_buckets',
    'b2_list_buckets!',
  ])('%s is reported, once for both judged eras, with the pattern', (name) => {
    expect(run('name-pattern', ['b2_list_buckets', name], SNAKE_CASE)).toEqual([
      { tool: name, scope: BOTH, data: { pattern: SNAKE_CASE.pattern } },
    ]);
  });

  it('`when` limits the names judged; `flags` apply to both expressions', () => {
    const params = { pattern: '^s3_get_', when: '^s3_' };
    expect(run('name-pattern', ['b2_list_buckets', 's3_get_object', 's3_put_object'], params)).toEqual([
      { tool: 's3_put_object', scope: BOTH, data: { pattern: '^s3_get_' } },
    ]);
    expect(run('name-pattern', ['S3_PUT_OBJECT'], params)).toEqual([]);
    expect(run('name-pattern', ['S3_PUT_OBJECT'], { ...params, flags: 'i' })).toEqual([
      { tool: 'S3_PUT_OBJECT', scope: BOTH, data: { pattern: '^s3_get_' } },
    ]);
    expect(run('name-pattern', ['S3_GET_OBJECT'], { ...params, flags: 'i' })).toEqual([]);
  });

  it('eras that list different tools are judged apart; the witness is not judged', () => {
    const tools = named('bad-name');
    const surfaces = [surface('modern', tools, 'h1'), surface('legacy', tools, 'h2'), surface('witness', named('also-bad'), 'h3')];
    expect(NAME_KINDS['name-pattern']!.run(SNAKE_CASE, contextOf([], {}, surfaces))).toEqual([
      { tool: 'bad-name', scope: ['modern'], data: { pattern: SNAKE_CASE.pattern } },
      { tool: 'bad-name', scope: ['legacy'], data: { pattern: SNAKE_CASE.pattern } },
    ]);
  });
});

describe('policy-prefix (naming/prefix)', () => {
  const allowed = [...new Set(Object.values(POLICY.prefixes))].sort().join(' or ');

  it('the published prefixes are b2_ and s3_', () => {
    expect(allowed).toBe('b2_ or s3_');
  });

  it.each(Object.keys(CONTRACT.toolBacking!))('contract tool %s has an allowed prefix', (name) => {
    expect(run('policy-prefix', [name])).toEqual([]);
  });

  it.each(['gcs_list_buckets', 'b2list_buckets', 's3list_objects', 'B2_list_buckets', 'list_buckets', 'xb2_list_buckets'])(
    '%s is reported with the allowed prefixes',
    (name) => {
      expect(run('policy-prefix', ['b2_list_buckets', name])).toEqual([{ tool: name, scope: BOTH, data: { allowed } }]);
    },
  );
});

describe('policy-verb (naming/verb-first)', () => {
  const allowed = POLICY.verbs.join(', ');

  it.each(POLICY.verbs)('the verb %s after the prefix conforms', (verb) => {
    expect(run('policy-verb', [`b2_${verb}_things`, `s3_${verb}_things`])).toEqual([]);
  });

  it.each(POLICY.grandfathered)('grandfathered %s conforms', (name) => {
    expect(run('policy-verb', [name])).toEqual([]);
  });

  it.each([
    ['b2_buckets_list', 'buckets'],
    ['b2_lists_buckets', 'lists'],
    ['b2_List_buckets', 'List'],
    ['b2', ''],
    ['b2__list', ''],
    [`${POLICY.grandfathered[0]}_more`, POLICY.grandfathered[0]!.split('_')[1]!],
  ])('%s is reported with the segment %j and the policy verbs', (name, segment) => {
    expect(run('policy-verb', [name])).toEqual([{ tool: name, scope: BOTH, data: { segment, allowed } }]);
  });
});

describe('policy-presign-form (naming/presign-form)', () => {
  it.each(['s3_get_presigned_url', 's3_get_presigned_upload_part_url', 's3_get_presigned_put_url', 'b2_list_buckets', 's3_get_object'])(
    '%s conforms',
    (name) => {
      expect(run('policy-presign-form', [name])).toEqual([]);
    },
  );

  it.each([
    's3_presign_upload_part',
    's3_get_presigned_urls',
    'b2_get_presigned_url',
    's3_get_presigned_url_x',
    's3_presigned_get_url',
    's3_get_presigned__url',
  ])('%s mentions presign in another form and is reported', (name) => {
    expect(run('policy-presign-form', [name])).toEqual([{ tool: name, scope: BOTH, data: { pattern: POLICY.presign.pattern } }]);
  });

  it('a former name the contract in use still lists (fallback policy) is exempt, others are not', () => {
    const { naming: _naming, ...withoutPolicy } = CONTRACT;
    const fallback = namingPolicyFor(
      { ...withoutPolicy, toolBacking: { ...CONTRACT.toolBacking, s3_presign_upload_part: 'awsS3Sdk' } } as typeof CONTRACT,
      CONTRACT,
    );
    expect(fallback.adopted).toEqual(['s3_presign_upload_part']);
    expect(run('policy-presign-form', ['s3_presign_upload_part', 's3_presign_other'], {}, { naming: fallback })).toEqual([
      { tool: 's3_presign_other', scope: BOTH, data: { pattern: POLICY.presign.pattern } },
    ]);
  });
});

describe('policy-removed-name (naming/removed-name) under a fallback policy', () => {
  it('a former name the contract in use lists is its own tool; the others stay retired', () => {
    const { naming: _naming, ...withoutPolicy } = CONTRACT;
    const [kept, ...retired] = POLICY.renames;
    const fallback = namingPolicyFor(
      { ...withoutPolicy, toolBacking: { ...CONTRACT.toolBacking, [kept!.from]: 'customMcp' } } as typeof CONTRACT,
      CONTRACT,
    );
    const found = run(
      'policy-removed-name',
      POLICY.renames.map(({ from }) => from),
      {},
      { naming: fallback },
    );
    expect(found).toEqual(retired.map(({ from, to }) => ({ tool: from, scope: BOTH, data: { successor: to } })));
  });
});

describe('policy-fallback (naming/policy-fallback)', () => {
  const { naming: _naming, ...withoutPolicy } = CONTRACT;

  it('says nothing when the contract publishes its own policy', () => {
    expect(run('policy-fallback', ['b2_list_buckets'])).toEqual([]);
  });

  it('one note naming no adopted name, or each of them', () => {
    const plain = namingPolicyFor(withoutPolicy as typeof CONTRACT, CONTRACT);
    expect(run('policy-fallback', ['b2_list_buckets'], {}, { naming: plain })).toEqual([{ data: { adopted: 'none' } }]);
    const [first, second] = POLICY.renames;
    const adopting = namingPolicyFor(
      { ...withoutPolicy, toolBacking: { [first!.from]: 'customMcp', [second!.from]: 'customMcp' } } as typeof CONTRACT,
      CONTRACT,
    );
    expect(run('policy-fallback', [], {}, { naming: adopting })).toEqual([
      { data: { adopted: [first!.from, second!.from].sort().join(', ') } },
    ]);
  });
});

describe('names-unique (naming/unique)', () => {
  it('distinct names conform', () => {
    expect(run('names-unique', ['b2_a_b', 'b2_a_c', 'B2_a_b'])).toEqual([]);
  });

  it('each repeated name is reported once with its count', () => {
    expect(run('names-unique', ['b2_a_b', 'b2_x_y', 'b2_a_b', 'b2_x_y', 'b2_x_y', 'b2_c_d'])).toEqual([
      { tool: 'b2_a_b', scope: BOTH, data: { count: 2 } },
      { tool: 'b2_x_y', scope: BOTH, data: { count: 3 } },
    ]);
  });

  it('eras are counted apart, and the witness not at all', () => {
    const surfaces = [
      surface('modern', named('b2_a_b', 'b2_a_b'), 'h1'),
      surface('legacy', named('b2_a_b'), 'h2'),
      surface('witness', named('b2_c_d', 'b2_c_d'), 'h3'),
    ];
    expect(NAME_KINDS['names-unique']!.run({}, contextOf([], {}, surfaces))).toEqual([
      { tool: 'b2_a_b', scope: ['modern'], data: { count: 2 } },
    ]);
  });
});

describe('names-sorted (naming/sorted): code-point order', () => {
  it.each([
    [['b2_a', 'b2_b', 's3_a']],
    [['B2_z', 'b2_a']],
    [['b2_list', 'b2_list_buckets', 'b2_listx']],
    [['b2_a', 'b2_a']],
    [['b2_only']],
    [[]],
  ])('%j is sorted', (names) => {
    expect(run('names-sorted', names)).toEqual([]);
  });

  it.each([
    [['b2_b', 'b2_a'], 'b2_a', 'b2_b'],
    [['b2_a', 'b2_c', 'b2_b', 'b2_a'], 'b2_b', 'b2_c'],
    [['b2_a', 'B2_z'], 'B2_z', 'b2_a'],
    [['b2_listx', 'b2_list_buckets'], 'b2_list_buckets', 'b2_listx'],
    [['s3_a', 'b2_a', 'b2_b'], 'b2_a', 's3_a'],
  ])('%j: the first name out of order is %s, after %s', (names, tool, previous) => {
    expect(run('names-sorted', names)).toEqual([{ tool, scope: BOTH, data: { previous } }]);
  });
});

describe('prefix-matches-backing (naming/prefix-backing)', () => {
  const backing = CONTRACT.toolBacking as Record<string, string>;

  it('every contract tool carries the prefix of its backing category', () => {
    expect(run('prefix-matches-backing', Object.keys(backing))).toEqual([]);
  });

  it.each(Object.entries(backing).filter(([name]) => name.startsWith('s3_')))(
    '%s (%s) listed under the b2_ prefix is reported',
    (name, category) => {
      const moved = `b2_${name.slice(3)}`;
      const contract = { ...CONTRACT, toolBacking: { [moved]: category } };
      expect(run('prefix-matches-backing', [moved], {}, { contract })).toEqual([
        { tool: moved, scope: BOTH, data: { category, prefix: POLICY.prefixes[category as keyof typeof POLICY.prefixes] } },
      ]);
    },
  );

  it('a tool the contract does not map, one with an unknown prefix, or no contract at all: nothing', () => {
    expect(run('prefix-matches-backing', ['b2_not_in_contract'])).toEqual([]);
    expect(
      run('prefix-matches-backing', ['gcs_list_buckets'], {}, { contract: { ...CONTRACT, toolBacking: { gcs_list_buckets: 'awsS3Sdk' } } }),
    ).toEqual([]);
    expect(run('prefix-matches-backing', ['b2_list_objects'], {}, { contract: undefined })).toEqual([]);
    expect(run('prefix-matches-backing', ['b2_list_objects'], {}, { contract: { ...CONTRACT, toolBacking: undefined } })).toEqual([]);
  });

  it('a category without a prefix in the policy: nothing to compare', () => {
    expect(
      run(
        'prefix-matches-backing',
        ['b2_list_objects'],
        {},
        { contract: { ...CONTRACT, toolBacking: { b2_list_objects: 'otherSdk' } } as never },
      ),
    ).toEqual([]);
  });
});

describe('what each naming kind needs', () => {
  it.each([
    ['name-pattern', ['live']],
    ['policy-prefix', ['live', 'naming']],
    ['policy-verb', ['live', 'naming']],
    ['policy-presign-form', ['live', 'naming']],
    ['policy-removed-name', ['live', 'naming']],
    ['policy-fallback', ['live', 'naming']],
    ['names-unique', ['live']],
    ['names-sorted', ['live']],
    ['prefix-matches-backing', ['live', 'contract', 'naming']],
  ])('%s needs %j', (kind, needs) => {
    expect(NAME_KINDS[kind]!.needs).toEqual(needs);
  });
});
