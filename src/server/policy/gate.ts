import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { inputRequired, inputResponse, type InputRequiredResult } from '@modelcontextprotocol/server';
import { compareCodePoints } from '../../contract/normalize.js';
import type { DestructivePolicy } from '../config.js';
import { ToolError, type ToolArgs } from '../tools/definition.js';

/** The key under which the confirmation form travels in `inputRequests` / `inputResponses`. */
export const CONFIRMATION_INPUT_KEY = 'destructiveConfirmation';
const STATE_PREFIX = 'b2-mcp-confirm-v1.';
const STATE_TTL_MS = 10 * 60 * 1000;

export interface GateRequest {
  toolName: string;
  /** What the call would do; computed by the tool's gate trigger. */
  effect: string;
  args: ToolArgs;
  policy: DestructivePolicy;
  /** Elicitation is enabled and this client can answer a form. */
  canElicit: boolean;
  inputResponses: Record<string, unknown> | undefined;
  requestState: string | undefined;
  /** Modern-era retries come back from the client, so their state must be verified. */
  verifyState: boolean;
}

export type GateOutcome = { kind: 'proceed' } | { kind: 'ask'; result: InputRequiredResult };

/** Canonical JSON of the arguments without `confirm`: what an approval is bound to. */
function argsDigest(key: Buffer, toolName: string, args: ToolArgs): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort(compareCodePoints)) out[k] = canonical((value as ToolArgs)[k]);
    return out;
  };
  const { confirm: _confirm, ...rest } = args;
  return createHmac('sha256', key).update(`${toolName}\0${JSON.stringify(canonical(rest))}`).digest('base64url');
}

/** Signs and checks the request state that binds a human's answer to one exact call. */
export class ConfirmationStates {
  constructor(private readonly key: Buffer = randomBytes(32), private readonly now: () => number = Date.now) {}

  mint(toolName: string, args: ToolArgs): string {
    const payload = Buffer.from(JSON.stringify({ t: toolName, d: argsDigest(this.key, toolName, args), at: this.now() })).toString('base64url');
    return `${STATE_PREFIX}${payload}.${this.sign(payload)}`;
  }

  verify(state: string | undefined, toolName: string, args: ToolArgs): string | undefined {
    if (!state?.startsWith(STATE_PREFIX)) return 'the confirmation state is missing';
    const [payload, signature] = state.slice(STATE_PREFIX.length).split('.');
    if (!payload || !signature) return 'the confirmation state is malformed';
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'the confirmation state is invalid';
    let parsed: { t?: unknown; d?: unknown; at?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return 'the confirmation state is malformed';
    }
    if (typeof parsed.at !== 'number' || this.now() - parsed.at > STATE_TTL_MS) return 'the confirmation expired';
    if (parsed.t !== toolName || parsed.d !== argsDigest(this.key, toolName, args)) return 'the approval was for a different call';
    return undefined;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}

function refused(reason: string, effect: string): ToolError {
  return new ToolError(409, 'destructive_confirmation_refused', `Refused: this would ${effect}, and ${reason}. Nothing was changed.`);
}

/**
 * Decides whether a gated call may run. Throws a ToolError when it is refused; returns an
 * input-required result when a human must be asked first.
 */
export function evaluateGate(request: GateRequest, states: ConfirmationStates): GateOutcome {
  const { toolName, effect, args, policy } = request;
  if (policy === 'allow') return { kind: 'proceed' };
  if (policy === 'block') {
    throw new ToolError(403, 'destructive_policy_blocked', `Refused: this would ${effect}. This server's policy blocks such calls. Nothing was changed.`);
  }
  if (request.canElicit) {
    const answer = inputResponse(request.inputResponses, CONFIRMATION_INPUT_KEY);
    if (answer.kind === 'missing') {
      return {
        kind: 'ask',
        result: inputRequired({
          inputRequests: {
            [CONFIRMATION_INPUT_KEY]: inputRequired.elicit({
              mode: 'form',
              message: `${toolName} would ${effect}. Approve this call?`,
              requestedSchema: {
                type: 'object',
                properties: { confirm: { type: 'boolean', title: 'Approve', default: false } },
                required: ['confirm'],
              },
            }),
          },
          requestState: states.mint(toolName, args),
        }),
      };
    }
    if (answer.kind !== 'elicit') throw refused('the answer was not a form response', effect);
    if (answer.action === 'decline') throw refused('the user declined', effect);
    if (answer.action === 'cancel') throw refused('the user cancelled', effect);
    if ((answer.content as { confirm?: unknown } | undefined)?.confirm !== true) throw refused('the user did not approve', effect);
    if (request.verifyState) {
      const problem = states.verify(request.requestState, toolName, args);
      if (problem) throw refused(problem, effect);
    }
    return { kind: 'proceed' };
  }
  if (args.confirm === true) return { kind: 'proceed' };
  throw new ToolError(
    409,
    'destructive_confirmation_required',
    `Confirmation required: this would ${effect}. Ask the user; if they approve, repeat the identical call with "confirm": true. Nothing was changed.`,
  );
}
