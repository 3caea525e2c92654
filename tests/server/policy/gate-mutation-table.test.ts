/**
 * The confirmation gate at its edges (contract §6.3–6.5): every policy, every answer kind, the
 * ten-minute window at its boundary and one past it, the signed state's shape checks, and the
 * binding of an approval to one canonical form of the arguments.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { InputRequiredResult } from '@modelcontextprotocol/server';
import {
  CONFIRMATION_INPUT_KEY,
  ConfirmationStates,
  describeTargets,
  evaluateGate,
  type GateRequest,
} from '../../../src/server/policy/gate.js';
import { ToolError } from '../../../src/server/errors.js';
import type { ToolArgs } from '../../../src/server/tools/schema.js';

const TEN_MINUTES = 10 * 60 * 1000;
const PREFIX = 'b2-mcp-confirm-v2.';
const KEY = Buffer.alloc(32, 7);
const identity = (text: string) => text;
const accept = { [CONFIRMATION_INPUT_KEY]: { action: 'accept', content: { confirm: true } } };

function request(overrides: Partial<GateRequest> = {}): GateRequest {
  return {
    toolName: 's3_delete_object',
    effect: 'delete the object',
    args: { bucket: 'photos', key: 'cat.jpg' },
    policy: 'confirm',
    canElicit: true,
    inputResponses: undefined,
    requestState: undefined,
    display: identity,
    ...overrides,
  };
}

type Form = { method: string; params: { mode: string; message: string; requestedSchema: unknown } };

function ask(states: ConfirmationStates, overrides: Partial<GateRequest> = {}): { form: Form; state: string } {
  const outcome = evaluateGate(request(overrides), states);
  if (outcome.kind !== 'ask') throw new Error(`expected a question, got ${outcome.kind}`);
  const result = outcome.result as InputRequiredResult & { inputRequests: Record<string, Form> };
  return { form: result.inputRequests[CONFIRMATION_INPUT_KEY]!, state: result.requestState! };
}

function refusal(states: ConfirmationStates, overrides: Partial<GateRequest>): ToolError {
  let outcome: unknown;
  try {
    outcome = evaluateGate(request(overrides), states);
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return error;
  }
  throw new Error(`expected a refusal, got ${JSON.stringify(outcome)}`);
}

/** A state signed with the test key, as the server would mint it, with any payload. */
function signed(payload: unknown): string {
  const encoded = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload)).toString('base64url');
  return `${PREFIX}${encoded}.${createHmac('sha256', KEY).update(encoded).digest('base64url')}`;
}

describe('each policy decides on its own (contract §6.3)', () => {
  it('allow runs without asking, whatever the answer or state', () => {
    expect(evaluateGate(request({ policy: 'allow' }), new ConfirmationStates())).toEqual({ kind: 'proceed' });
    expect(evaluateGate(request({ policy: 'allow', canElicit: false }), new ConfirmationStates())).toEqual({ kind: 'proceed' });
  });

  it('block refuses with 403 destructive_policy_blocked even with confirm: true or an accepted answer', () => {
    for (const overrides of [
      {},
      { args: { bucket: 'b', confirm: true } },
      { inputResponses: accept },
      { canElicit: false, args: { confirm: true } },
    ]) {
      const error = refusal(new ConfirmationStates(), { policy: 'block', ...overrides });
      expect([error.status, error.code]).toEqual([403, 'destructive_policy_blocked']);
      expect(error.message).toBe("Refused: this would delete the object. This server's policy blocks such calls. Nothing was changed.");
    }
  });

  it('confirm without elicitation runs only with confirm exactly true', () => {
    const states = new ConfirmationStates();
    expect(evaluateGate(request({ canElicit: false, args: { bucket: 'b', confirm: true } }), states)).toEqual({ kind: 'proceed' });
    for (const confirm of [undefined, false, 'true', 1]) {
      const error = refusal(states, { canElicit: false, args: { bucket: 'b', confirm } });
      expect([error.status, error.code]).toEqual([409, 'destructive_confirmation_required']);
      expect(error.message).toBe(
        'Confirmation required: this would delete the object. Ask the user; if they approve, repeat the identical call with "confirm": true. Nothing was changed.',
      );
    }
  });

  it('with elicitation, confirm: true in the arguments does not replace the answer', () => {
    const states = new ConfirmationStates();
    const outcome = evaluateGate(request({ args: { bucket: 'b', confirm: true } }), states);
    expect(outcome.kind).toBe('ask');
  });
});

describe('the question is a form with one required boolean confirm (contract §6.4)', () => {
  it('asks in form mode with exactly this schema and a message naming tool, effect and targets', () => {
    const { form } = ask(new ConfirmationStates());
    expect(form.method).toBe('elicitation/create');
    expect(form.params).toEqual({
      mode: 'form',
      message: 's3_delete_object would delete the object (bucket "photos", key "cat.jpg"). Approve this call?',
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: 'Approve', default: false } },
        required: ['confirm'],
      },
    });
  });

  it('a call without targets gets no empty parentheses', () => {
    expect(
      ask(new ConfirmationStates(), { toolName: 'b2_create_group_member', effect: 'create a member', args: {} }).form.params.message,
    ).toBe('b2_create_group_member would create a member. Approve this call?');
  });
});

describe('every answer that is not an approval is refused (contract §6.4–6.5)', () => {
  const cases: Array<[answer: unknown, reason: string]> = [
    [{ action: 'decline' }, 'the user declined'],
    [{ action: 'cancel' }, 'the user cancelled'],
    [{ action: 'accept' }, 'the user did not approve'],
    [{ action: 'accept', content: {} }, 'the user did not approve'],
    [{ action: 'accept', content: { confirm: false } }, 'the user did not approve'],
    [{ action: 'accept', content: { confirm: 'true' } }, 'the user did not approve'],
    [{ roots: [] }, 'the answer was not a form response'],
    [{ role: 'assistant', content: { type: 'text', text: 'yes' } }, 'the answer was not a form response'],
  ];
  it.each(cases)('%j → %s', (answer, reason) => {
    const states = new ConfirmationStates();
    const { state } = ask(states);
    const error = refusal(states, { inputResponses: { [CONFIRMATION_INPUT_KEY]: answer }, requestState: state });
    expect([error.status, error.code]).toEqual([409, 'destructive_confirmation_refused']);
    expect(error.message).toBe(`Refused: this would delete the object, and ${reason}. Nothing was changed.`);
  });
});

describe('the ten-minute window, at its boundary and one past it', () => {
  it('an approval answered exactly ten minutes after the question runs; one millisecond later it is refused', () => {
    let now = 1_000_000;
    const states = new ConfirmationStates(KEY, () => now);
    const onTime = ask(states).state;
    const late = ask(states).state;
    now += TEN_MINUTES;
    expect(evaluateGate(request({ inputResponses: accept, requestState: onTime }), states)).toEqual({ kind: 'proceed' });
    now += 1;
    expect(refusal(states, { inputResponses: accept, requestState: late }).message).toContain('the confirmation expired');
  });

  it('a spent approval is still refused as used at the last valid millisecond (no replay at the boundary)', () => {
    let now = 0;
    const states = new ConfirmationStates(KEY, () => now);
    const { state } = ask(states);
    expect(evaluateGate(request({ inputResponses: accept, requestState: state }), states).kind).toBe('proceed');
    now = TEN_MINUTES;
    expect(refusal(states, { inputResponses: accept, requestState: state }).message).toContain('already used');
  });

  it('a spent approval keeps its room until it has expired, then frees it', () => {
    let now = 0;
    const states = new ConfirmationStates(KEY, () => now, 1);
    expect(evaluateGate(request({ inputResponses: accept, requestState: ask(states).state }), states).kind).toBe('proceed');
    now = TEN_MINUTES;
    expect(refusal(states, { inputResponses: accept, requestState: ask(states).state }).message).toContain(
      'too many approvals are outstanding',
    );
    now = TEN_MINUTES + 1;
    expect(evaluateGate(request({ inputResponses: accept, requestState: ask(states).state }), states).kind).toBe('proceed');
  });
});

describe('the signed state is checked for shape before it is trusted', () => {
  const states = () => new ConfirmationStates(KEY, () => 0);
  const answer = (state: string, s = states()) => refusal(s, { inputResponses: accept, requestState: state }).message;

  it('a state without a payload or without a signature is malformed', () => {
    expect(answer(`${PREFIX}payload-only`)).toContain('the confirmation state is malformed');
    expect(answer(`${PREFIX}.signature-only`)).toContain('the confirmation state is malformed');
    expect(answer(PREFIX)).toContain('the confirmation state is malformed');
  });

  it('a state without the prefix is not an answer to this server', () => {
    expect(answer(signed({ t: 's3_delete_object' }).slice(PREFIX.length))).toContain(
      'does not reply to a confirmation this server asked for',
    );
  });

  it('a correctly signed payload that is not JSON is malformed', () => {
    expect(answer(signed('not json {'))).toContain('the confirmation state is malformed');
  });

  it('a correctly signed payload without a numeric time or a string nonce is refused as expired', () => {
    const digestOf = (s: ConfirmationStates) =>
      JSON.parse(Buffer.from(ask(s).state.slice(PREFIX.length).split('.')[0]!, 'base64url').toString()).d as string;
    const s = states();
    const d = digestOf(s);
    expect(
      evaluateGate(request({ inputResponses: accept, requestState: signed({ t: 's3_delete_object', d, at: 0, n: 'n1' }) }), s).kind,
    ).toBe('proceed');
    expect(answer(signed({ t: 's3_delete_object', d, at: '0', n: 'n2' }), s)).toContain('the confirmation expired');
    expect(answer(signed({ t: 's3_delete_object', d, n: 'n3' }), s)).toContain('the confirmation expired');
    expect(answer(signed({ t: 's3_delete_object', d, at: 0, n: 4 }), s)).toContain('the confirmation expired');
    expect(answer(signed({ t: 's3_delete_object', d, at: 0 }), s)).toContain('the confirmation expired');
    expect(answer(signed({ t: 'b2_delete_bucket', d, at: 0, n: 'n5' }), s)).toContain('the approval was for a different call');
  });
});

describe('an approval is bound to the canonical arguments, not to how they were written', () => {
  const approve = (asked: ToolArgs, answered: ToolArgs) => {
    const states = new ConfirmationStates(KEY, () => 0);
    const { state } = ask(states, { args: asked });
    try {
      return evaluateGate(request({ args: answered, inputResponses: accept, requestState: state }), states).kind;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('key order at any depth and the confirm flag do not matter', () => {
    expect(approve({ bucket: 'b', key: 'k' }, { key: 'k', bucket: 'b' })).toBe('proceed');
    expect(
      approve({ fileRetention: { mode: null, retainUntilTimestamp: 5 } }, { fileRetention: { retainUntilTimestamp: 5, mode: null } }),
    ).toBe('proceed');
    expect(approve({ objects: [{ key: 'a', versionId: 'v' }] }, { objects: [{ versionId: 'v', key: 'a' }], confirm: true })).toBe(
      'proceed',
    );
  });

  it('a list is not the same call as an object with numbered keys, and order inside a list matters', () => {
    expect(approve({ objects: [{ key: 'a' }] }, { objects: { 0: { key: 'a' } } })).toMatch(/different call/);
    expect(approve({ objects: [{ key: 'a' }, { key: 'b' }] }, { objects: [{ key: 'b' }, { key: 'a' }] })).toMatch(/different call/);
    expect(approve({ fileRetention: { mode: null } }, { fileRetention: { mode: 'null' } })).toMatch(/different call/);
    expect(approve({ fileRetention: { mode: null } }, { fileRetention: {} })).toMatch(/different call/);
  });
});

describe('targets as the human sees them', () => {
  it('values are trimmed; a value of exactly 120 characters is shown whole, 121 are cut to 117 and "..."', () => {
    expect(describeTargets({ bucket: '  spaced\t ' }, identity)).toBe('bucket "spaced"');
    expect(describeTargets({ key: 'k'.repeat(120) }, identity)).toBe(`key "${'k'.repeat(120)}"`);
    expect(describeTargets({ key: 'k'.repeat(121) }, identity)).toBe(`key "${'k'.repeat(117)}..."`);
  });

  it('numbers are shown, other value types are not; list entries without a name show "?"', () => {
    expect(describeTargets({ bucket: 'b', expiresIn: 3600 }, identity)).toBe('bucket "b", expiresIn "3600"');
    expect(describeTargets({ bucket: true, key: { a: 1 }, fileId: null }, identity)).toBe('');
    expect(describeTargets({ objects: [{}, null, { key: 'x' }] }, identity)).toBe('3 objects: ?, ?, "x"');
    expect(describeTargets({ lifecycleRules: [{ fileNamePrefix: 'logs/' }] }, identity)).toBe('1 lifecycle rules: "logs/"');
  });

  it('the display function is applied to every shown value', () => {
    expect(describeTargets({ bucket: 'b', objects: [{ key: 'k', versionId: 'v' }] }, (t) => t.toUpperCase())).toBe(
      'bucket "B", 1 objects: "K" (versionId "V")',
    );
  });
});
