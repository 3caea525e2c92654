/** The confirmation gate's own rules: approvals bound to one call, spent once, targets shown safely. */
import { describe, expect, it } from 'vitest';
import type { InputRequiredResult } from '@modelcontextprotocol/server';
import {
  CONFIRMATION_INPUT_KEY,
  ConfirmationStates,
  describeTargets,
  evaluateGate,
  type GateRequest,
} from '../../../src/server/policy/gate.js';
import { createSanitizer } from '../../../src/server/policy/sanitize.js';
import { ToolError } from '../../../src/server/errors.js';

const CANARY = 'B2_MCP_CANARY_SECRET_gate01';
const sanitizer = createSanitizer([]);
const accept = { [CONFIRMATION_INPUT_KEY]: { action: 'accept', content: { confirm: true } } };
const args = { bucket: 'photos', key: 'cat.jpg' };

function request(overrides: Partial<GateRequest> = {}): GateRequest {
  return {
    toolName: 's3_delete_object',
    effect: 'delete the object',
    args,
    policy: 'confirm',
    canElicit: true,
    inputResponses: undefined,
    requestState: undefined,
    display: sanitizer.text,
    ...overrides,
  };
}

function ask(states: ConfirmationStates, overrides: Partial<GateRequest> = {}): { message: string; state: string } {
  const outcome = evaluateGate(request(overrides), states);
  if (outcome.kind !== 'ask') throw new Error('expected a question');
  const result = outcome.result as InputRequiredResult & { inputRequests: Record<string, { params: { message: string } }> };
  return { message: result.inputRequests[CONFIRMATION_INPUT_KEY]!.params.message, state: result.requestState! };
}

function refusal(states: ConfirmationStates, overrides: Partial<GateRequest>): ToolError {
  try {
    evaluateGate(request(overrides), states);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected a refusal');
}

describe('answers must reply to a question this server asked', () => {
  it('an unsolicited accept (no state) does not run the call', () => {
    const states = new ConfirmationStates();
    const error = refusal(states, { inputResponses: accept });
    expect([error.status, error.code]).toEqual([409, 'destructive_confirmation_refused']);
    expect(error.message).toContain('does not reply to a confirmation this server asked for');
  });

  it('an accept with the state minted for this call proceeds, exactly once', () => {
    const states = new ConfirmationStates();
    const { state } = ask(states);
    expect(evaluateGate(request({ inputResponses: accept, requestState: state }), states)).toEqual({ kind: 'proceed' });
    expect(refusal(states, { inputResponses: accept, requestState: state }).message).toContain('already used');
  });

  it('a declined answer spends its state too, so it cannot be turned into an accept', () => {
    const states = new ConfirmationStates();
    const { state } = ask(states);
    expect(refusal(states, { inputResponses: { [CONFIRMATION_INPUT_KEY]: { action: 'decline' } }, requestState: state }).message).toContain(
      'declined',
    );
    expect(refusal(states, { inputResponses: accept, requestState: state }).message).toContain('already used');
  });

  it('a state for another call, a forged or a foreign state, and an expired one are refused', () => {
    let now = 0;
    const states = new ConfirmationStates(undefined, () => now);
    const other = ask(states, { args: { bucket: 'photos', key: 'dog.jpg' } }).state;
    expect(refusal(states, { inputResponses: accept, requestState: other }).message).toContain('different call');
    expect(refusal(states, { inputResponses: accept, requestState: `${other}x` }).message).toContain('invalid');
    const foreign = ask(new ConfirmationStates()).state;
    expect(refusal(states, { inputResponses: accept, requestState: foreign }).message).toContain('invalid');
    const late = ask(states).state;
    now = 10 * 60 * 1000 + 1;
    expect(refusal(states, { inputResponses: accept, requestState: late }).message).toContain('expired');
  });

  it('spent approvals are remembered only while they could still be valid, and their number is bounded', () => {
    let now = 0;
    const states = new ConfirmationStates(undefined, () => now, 2);
    const redeem = () => evaluateGate(request({ inputResponses: accept, requestState: ask(states).state }), states).kind;
    expect([redeem(), redeem()]).toEqual(['proceed', 'proceed']);
    expect(() => redeem()).toThrow(/too many approvals are outstanding/);
    // Once the first two have expired they are forgotten, and room is back.
    now = 10 * 60 * 1000 + 1;
    expect(redeem()).toBe('proceed');
  });

  it('each question gets its own state: two approvals of the same call are two single uses', () => {
    const states = new ConfirmationStates();
    const first = ask(states).state;
    const second = ask(states).state;
    expect(first).not.toBe(second);
    for (const state of [first, second])
      expect(evaluateGate(request({ inputResponses: accept, requestState: state }), states).kind).toBe('proceed');
  });
});

describe('the question names the tool and its targets', () => {
  it('bucket, key, version and key name appear, so concurrent questions differ', () => {
    const states = new ConfirmationStates();
    const one = ask(states, { args: { bucket: 'photos', key: 'cat.jpg', versionId: 'v1' } }).message;
    const two = ask(states, { args: { bucket: 'photos', key: 'dog.jpg', versionId: 'v1' } }).message;
    expect(one).toBe('s3_delete_object would delete the object (bucket "photos", key "cat.jpg", versionId "v1"). Approve this call?');
    expect(one).not.toBe(two);
    expect(describeTargets({ keyName: 'ci-deploy', applicationKeyId: 'K1' }, sanitizer.text)).toBe(
      'applicationKeyId "K1", keyName "ci-deploy"',
    );
    expect(
      describeTargets({ bucket: 'b', objects: [{ key: 'a' }, { key: 'b', versionId: 'v' }], bypassGovernance: true }, sanitizer.text),
    ).toBe('bucket "b", 2 objects: "a", "b" (versionId "v"), bypassing governance retention');
    const many = describeTargets({ objects: Array.from({ length: 7 }, (_, i) => ({ key: `k${i}` })) }, sanitizer.text);
    expect(many).toBe('7 objects: "k0", "k1", "k2", "k3", "k4" +2 more');
    expect(describeTargets({ bucket: 'b', rules: [] }, sanitizer.text)).toBe('bucket "b", 0 lifecycle rules');
    expect(describeTargets({ bucketId: 'B1', eventNotificationRules: [{ name: 'hook' }] }, sanitizer.text)).toBe(
      'bucketId "B1", 1 notification rules: "hook"',
    );
  });

  it('destinations are all named, never summarised: every webhook host, every replication peer, every capability of a new key', () => {
    const hooks = Array.from({ length: 7 }, (_, i) => ({
      name: `h${i}`,
      targetConfiguration: { url: `https://host${i}.example/path-token-${i}` },
    }));
    const webhooks = describeTargets(
      { bucketId: 'B', eventNotificationRules: [...hooks, { name: 'bad', targetConfiguration: { url: 'not a url' } }] },
      sanitizer.text,
    );
    for (let i = 0; i < 7; i++) expect(webhooks).toContain(`"https://host${i}.example"`);
    expect(webhooks).toContain('"(not a URL)"');
    expect(webhooks).not.toContain('path-token');
    const mapping = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`src-${i}`, `dst-${i}`]));
    expect(
      describeTargets(
        { bucketId: 'B', replicationConfiguration: { asReplicationDestination: { sourceToDestinationKeyMapping: mapping } } },
        sanitizer.text,
      ),
    ).toBe('bucketId "B", accepting replicas written by source keys ["src-0", "src-1", "src-2", "src-3", "src-4", "src-5", "src-6"]');
    const all = ['writeKeys', 'deleteKeys', 'writeBucketReplications', 'writeBucketNotifications', 'bypassGovernance', 'shareFiles'];
    const key = describeTargets({ keyName: 'k', capabilities: all }, sanitizer.text);
    expect(
      key
        .match(/RISKY \[(.*)\]/)?.[1]
        ?.split('; ')
        .map((entry) => entry.split(':')[0]),
    ).toEqual(all);
    expect(key).toContain('EVERY bucket of the account (unscoped)');
    expect(describeTargets({ keyName: 'k', capabilities: ['readFiles'], bucketIds: [], namePrefix: '' }, sanitizer.text)).toContain(
      'EVERY bucket of the account (unscoped), every file name, never expiring',
    );
  });

  it('destinations are sanitized like every other target', () => {
    const message = describeTargets(
      {
        keyName: 'k',
        capabilities: ['readFiles'],
        bucketIds: [CANARY],
        namePrefix: `x${CANARY}`,
        replicationConfiguration: { asReplicationSource: { sourceApplicationKeyId: CANARY, replicationRules: [] } },
      },
      createSanitizer([CANARY]).text,
    );
    expect(message).not.toContain(CANARY);
    expect(message).toContain('only buckets ["[redacted]"]');
  });

  it('targets are sanitized, whitespace-collapsed and cut to 120 characters before display', () => {
    const message = describeTargets(
      { bucket: `x ${CANARY}`, key: 'line\nbreak\u001b[31m  end', fileName: 'n'.repeat(500) },
      sanitizer.text,
    );
    expect(message).not.toContain(CANARY);
    expect(message).toContain('bucket "x [redacted]"');
    expect(message).toContain('key "line break [31m end"');
    expect(message).toContain(`fileName "${'n'.repeat(117)}..."`);
    expect(message).not.toMatch(/[\n\u001b]/);
  });
});
