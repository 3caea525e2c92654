import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ContractArtifact } from '../../../src/contract/artifact.js';
import { namingPolicyFor } from '../../../src/conformance/diff/naming-policy.js';
import { judgeRefusal } from '../../../src/conformance/probes/gate.js';
import { NAME_KINDS } from '../../../src/conformance/rules/kinds/names.js';
import type { RuleContext } from '../../../src/conformance/rules/types.js';

/** The contract artifact as published: its renames are the oracle, not the rule's own code. */
const CONTRACT = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'generated', 'tool-profile-contract.json'), 'utf8'),
) as ContractArtifact;
const RENAMES = CONTRACT.naming!.renames;

function contextListing(names: string[]): RuleContext {
  const surface = (connection: string) => ({ connection, hash: 'one-surface', listed: names.map((name) => ({ name })) });
  return {
    mode: 'check',
    profile: 'full',
    surfaces: [surface('modern'), surface('legacy'), surface('witness')],
    naming: namingPolicyFor(CONTRACT, CONTRACT),
    changes: [],
  } as unknown as RuleContext;
}

describe('naming/removed-name: every retired name of the contract, and its successor', () => {
  const removedName = NAME_KINDS['policy-removed-name']!;

  it('the contract retires at least the four former names', () => {
    expect(RENAMES.length).toBeGreaterThanOrEqual(4);
  });

  it.each(RENAMES)('$from is found, named with its successor $to, once for both judged eras', ({ from, to }) => {
    expect(removedName.run({}, contextListing(['b2_list_buckets', from]))).toEqual([
      { tool: from, scope: ['modern', 'legacy'], data: { successor: to } },
    ]);
  });

  it.each(RENAMES)('$to (the successor of $from) is not found', ({ to }) => {
    expect(removedName.run({}, contextListing(['b2_list_buckets', to]))).toEqual([]);
  });

  it('every retired name listed at once is found, each once', () => {
    const found = removedName.run({}, contextListing(RENAMES.map(({ from }) => from)));
    expect(found.map((finding) => finding.tool).sort()).toEqual(RENAMES.map(({ from }) => from).sort());
  });
});

describe('gate probe: a refusal is judged by every change, not a tolerance', () => {
  const refused = {
    result: {
      content: [{ type: 'text' as const, text: 'B2 Error [destructive_confirmation_required] (HTTP 409): Confirmation required.' }],
      isError: true,
    },
    elicitations: [],
  };
  const spec = { tool: 'b2_delete_bucket', effect: 'mutation' as const };
  const mutations = (count: number) => Array.from({ length: count }, (_, index) => ({ seq: index + 1, operation: 'delete_bucket' }));

  it('no change and an isError result: refused', () => {
    expect(judgeRefusal(spec, { outcome: refused, mutations: [], changes: [] })).toEqual({
      passed: true,
      detail: expect.stringMatching(/^refused with error destructive_confirmation_required \(HTTP 409\).*; nothing changed$/),
    });
  });

  it.each([1, 2, 5])('%i mutation(s) without consent fail, however the server answered', (count) => {
    const verdict = judgeRefusal(spec, { outcome: refused, mutations: mutations(count), changes: [] });
    expect(verdict.passed).toBe(false);
    expect(verdict.detail).toBe(
      `b2_delete_bucket ran without consent: ${count} change${count === 1 ? '' : 's'} in the sandbox (delete_bucket)`,
    );
  });

  it('one state change without a log entry fails', () => {
    expect(
      judgeRefusal(spec, { outcome: refused, mutations: [], changes: [{ kind: 'bucket', name: 'b', change: 'removed' }] }).passed,
    ).toBe(false);
  });

  it('a refusal that is not an isError result fails, and so does a protocol error', () => {
    expect(
      judgeRefusal(spec, { outcome: { result: { content: [{ type: 'text', text: 'ok' }] }, elicitations: [] }, mutations: [], changes: [] })
        .passed,
    ).toBe(false);
    expect(judgeRefusal(spec, { outcome: { thrown: 'boom', elicitations: [] }, mutations: [], changes: [] })).toEqual({
      passed: false,
      detail: expect.stringMatching(/^b2_delete_bucket answered with a protocol error.* instead of an isError refusal$/),
    });
  });

  it('a presigned URL returned without consent fails even though nothing changed', () => {
    const signed = {
      result: { content: [{ type: 'text' as const, text: 'https://s3.example/b/k?X-Amz-Signature=abc' }], isError: true },
      elicitations: [],
    };
    expect(
      judgeRefusal({ tool: 's3_get_presigned_url', effect: 'signed-url' }, { outcome: signed, mutations: [], changes: [] }).passed,
    ).toBe(false);
    expect(
      judgeRefusal({ tool: 's3_get_presigned_url', effect: 'signed-url' }, { outcome: refused, mutations: [], changes: [] }).passed,
    ).toBe(true);
  });
});
