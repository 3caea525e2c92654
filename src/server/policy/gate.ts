import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { inputRequired, inputResponse, type InputRequiredResult } from '@modelcontextprotocol/server';
import { compareCodeUnits } from '../../contract/normalize.js';
import type { DestructivePolicy } from '../config.js';
import { ToolError } from '../errors.js';
import type { ToolArgs } from '../tools/schema.js';
import { describeDestinations } from './destinations.js';

/** The key under which the confirmation form travels in `inputRequests` / `inputResponses`. */
export const CONFIRMATION_INPUT_KEY = 'destructiveConfirmation';
const STATE_PREFIX = 'b2-mcp-confirm-v2.';
const STATE_TTL_MS = 10 * 60 * 1000;
/** Used approvals remembered (until they expire) so none is honoured twice. */
const MAX_SPENT_STATES = 100_000;

export interface GateRequest {
  toolName: string;
  /** What the call would do; computed by the tool's gate trigger. */
  effect: string;
  args: ToolArgs;
  policy: DestructivePolicy;
  /** Elicitation is enabled and this client can answer a form. */
  canElicit: boolean;
  inputResponses: Record<string, unknown> | undefined;
  /** The state this server minted when it asked; absent on a first call. */
  requestState: string | undefined;
  /** Makes a target value safe to show the human (secret redaction). */
  display: (text: string) => string;
}

export type GateOutcome = { kind: 'proceed' } | { kind: 'ask'; result: InputRequiredResult };

/** Canonical JSON of the arguments without `confirm`: what an approval is bound to. */
function argsDigest(key: Buffer, toolName: string, args: ToolArgs): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort(compareCodeUnits)) out[k] = canonical((value as ToolArgs)[k]);
    return out;
  };
  const { confirm: _confirm, ...rest } = args;
  return createHmac('sha256', key)
    .update(`${toolName}\0${JSON.stringify(canonical(rest))}`)
    .digest('base64url');
}

/**
 * Signs and checks the request state that binds a human's answer to one exact call. Each state
 * is single-use: once it has answered, it is spent until it would have expired anyway.
 */
export class ConfirmationStates {
  readonly #spent = new Map<string, number>();

  constructor(
    private readonly key: Buffer = randomBytes(32),
    private readonly now: () => number = Date.now,
    private readonly maxSpent: number = MAX_SPENT_STATES,
  ) {}

  mint(toolName: string, args: ToolArgs): string {
    const payload = Buffer.from(
      JSON.stringify({ t: toolName, d: argsDigest(this.key, toolName, args), at: this.now(), n: randomBytes(12).toString('base64url') }),
    ).toString('base64url');
    return `${STATE_PREFIX}${payload}.${this.sign(payload)}`;
  }

  /** Checks the state and spends it; returns why it does not approve this call, if it does not. */
  redeem(state: string | undefined, toolName: string, args: ToolArgs): string | undefined {
    if (!state?.startsWith(STATE_PREFIX)) return 'the answer does not reply to a confirmation this server asked for';
    const [payload, signature] = state.slice(STATE_PREFIX.length).split('.');
    if (!payload || !signature) return 'the confirmation state is malformed';
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'the confirmation state is invalid';
    let parsed: { t?: unknown; d?: unknown; at?: unknown; n?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return 'the confirmation state is malformed';
    }
    const now = this.now();
    if (typeof parsed.at !== 'number' || typeof parsed.n !== 'string' || now - parsed.at > STATE_TTL_MS) return 'the confirmation expired';
    if (parsed.t !== toolName || parsed.d !== argsDigest(this.key, toolName, args)) return 'the approval was for a different call';
    this.#forgetExpired(now);
    if (this.#spent.has(parsed.n)) return 'this approval was already used; each approval allows one call';
    if (this.#spent.size >= this.maxSpent) return 'too many approvals are outstanding; ask again later';
    this.#spent.set(parsed.n, parsed.at + STATE_TTL_MS);
    return undefined;
  }

  #forgetExpired(now: number): void {
    // Spent in about the order they expire: sweep the expired front, leave stragglers for later.
    for (const [nonce, expires] of this.#spent) {
      if (expires >= now) break;
      this.#spent.delete(nonce);
    }
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}

/** Arguments that name what a gated call acts on (contract §6.4), in the order they are shown. */
const TARGET_ARGUMENTS: readonly string[] = [
  'bucketId',
  'bucket',
  'bucketName',
  'key',
  'versionId',
  'fileId',
  'fileName',
  'applicationKeyId',
  'keyName',
  'adminAccountId',
  'groupId',
  'memberAccountId',
  'memberEmail',
  'email',
  'operation',
  'expiresIn',
  'uploadId',
];
/** Lists whose size is shown, with the field that names each entry. */
const TARGET_LISTS: ReadonlyArray<[list: string, label: string, entryName: string]> = [
  ['objects', 'objects', 'key'],
  ['rules', 'lifecycle rules', 'id'],
  ['lifecycleRules', 'lifecycle rules', 'fileNamePrefix'],
  ['eventNotificationRules', 'notification rules', 'name'],
];
const MAX_TARGET_CHARS = 120;
const MAX_LISTED_ENTRIES = 5;

/** A value as the human sees it: redacted, whitespace collapsed, cut to 120 characters, quoted. */
function shown(value: unknown, display: (text: string) => string): string {
  const text = display(String(value))
    .replace(/[\s\p{Cc}]+/gu, ' ')
    .trim();
  return JSON.stringify(text.length > MAX_TARGET_CHARS ? `${text.slice(0, MAX_TARGET_CHARS - 3)}...` : text);
}

/**
 * `bucket "b", key "k"`: what this exact call targets, so two pending approvals differ, then where
 * it sends data and what a new key could do.
 */
export function describeTargets(args: ToolArgs, display: (text: string) => string): string {
  const parts = TARGET_ARGUMENTS.filter((name) => typeof args[name] === 'string' || typeof args[name] === 'number').map(
    (name) => `${name} ${shown(args[name], display)}`,
  );
  for (const [list, label, entryName] of TARGET_LISTS) {
    const entries = args[list];
    if (!Array.isArray(entries)) continue;
    const named = entries.slice(0, MAX_LISTED_ENTRIES).map((entry: unknown) => {
      const record = (entry ?? {}) as Record<string, unknown>;
      const version = record.versionId !== undefined ? ` (versionId ${shown(record.versionId, display)})` : '';
      return record[entryName] !== undefined ? `${shown(record[entryName], display)}${version}` : '?';
    });
    const more = entries.length > named.length ? ` +${entries.length - named.length} more` : '';
    parts.push(`${entries.length} ${label}${named.length > 0 ? `: ${named.join(', ')}${more}` : ''}`);
  }
  if (args.bypassGovernance === true) parts.push('bypassing governance retention');
  parts.push(...describeDestinations(args, (value) => shown(value, display)));
  return parts.join(', ');
}

function refused(reason: string, effect: string): ToolError {
  return new ToolError(409, 'destructive_confirmation_refused', `Refused: this would ${effect}, and ${reason}. Nothing was changed.`);
}

/**
 * Decides whether a gated call may run. Throws a ToolError when it is refused; returns an
 * input-required result when a human must be asked first. An answer counts only together with
 * the state this server minted when it asked for exactly this call, and only once.
 */
export function evaluateGate(request: GateRequest, states: ConfirmationStates): GateOutcome {
  const { toolName, effect, args, policy } = request;
  if (policy === 'allow') return { kind: 'proceed' };
  if (policy === 'block') {
    throw new ToolError(
      403,
      'destructive_policy_blocked',
      `Refused: this would ${effect}. This server's policy blocks such calls. Nothing was changed.`,
    );
  }
  if (request.canElicit) {
    const answer = inputResponse(request.inputResponses, CONFIRMATION_INPUT_KEY);
    if (answer.kind === 'missing') {
      const targets = describeTargets(args, request.display);
      return {
        kind: 'ask',
        result: inputRequired({
          inputRequests: {
            [CONFIRMATION_INPUT_KEY]: inputRequired.elicit({
              mode: 'form',
              message: `${toolName} would ${effect}${targets ? ` (${targets})` : ''}. Approve this call?`,
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
    const problem = states.redeem(request.requestState, toolName, args);
    if (problem) throw refused(problem, effect);
    if (answer.kind !== 'elicit') throw refused('the answer was not a form response', effect);
    if (answer.action === 'decline') throw refused('the user declined', effect);
    if (answer.action === 'cancel') throw refused('the user cancelled', effect);
    if ((answer.content as { confirm?: unknown } | undefined)?.confirm !== true) throw refused('the user did not approve', effect);
    return { kind: 'proceed' };
  }
  if (args.confirm === true) return { kind: 'proceed' };
  throw new ToolError(
    409,
    'destructive_confirmation_required',
    `Confirmation required: this would ${effect}. Ask the user; if they approve, repeat the identical call with "confirm": true. Nothing was changed.`,
  );
}
