/**
 * The one flow every durable-secret tool runs (contract §7): reserve the caller's idempotency
 * key, create on B2, store the secret, and only then answer.
 *
 * - Same key and input again: the earlier result comes back (secret redacted), nothing is created.
 * - File mode: the model sees the result with `applicationKey: "[redacted]"` and where the
 *   secret was written. If the ledger cannot take the record, the creation is undone on B2
 *   (`undo`) and the call fails with 500 `secret_sink_write_failed` saying whether that worked.
 * - Inline mode: the model sees the whole result once, with a warning; the outcome is marked
 *   `containsSecret` so the server passes it through unsanitized (that mode only).
 */
import { B2Error, B2TransportError } from '../b2/errors.js';
import type { ToolContext } from '../context.js';
import { REDACTED } from '../policy/sanitize.js';
import { SecretSinkError, type SinkReceipt } from '../policy/secret-sink.js';
import { ToolError } from '../errors.js';
import type { ToolOutcome } from '../tools/definition.js';
import type { ToolArgs } from '../tools/schema.js';
import { idempotencyIds, type CreationClaim, type IdempotencyIds, type SecretStore } from './store.js';

export interface SecretCreation<R extends { applicationKey: string }> {
  tool: string;
  /** Names what was created in messages and logs (ids only), e.g. `application key K005…`. */
  describe(created: R): string;
  create(): Promise<R>;
  /** Removes the creation on B2 when its secret could not be stored; absent when B2 offers no way. */
  undo?: { run(created: R): Promise<void> /** Past tense, e.g. `deleted`. */; done: string };
}

const INLINE_SECRET_WARNING =
  'This result contains a new durable secret (applicationKey) and is shown only once: store it in a secret manager now and rotate it when it is no longer needed.';

/** The created resource as the model may see it outside inline mode. */
function withoutSecret<R extends object>(created: R): R {
  return 'applicationKey' in created ? { ...created, applicationKey: REDACTED } : created;
}

/** A B2 refusal (4xx other than a timeout) means nothing was created; anything else may have. */
function certainlyNotCreated(error: unknown): boolean {
  if (error instanceof ToolError) return true;
  if (error instanceof B2TransportError || !(error instanceof B2Error)) return false;
  return error.status >= 400 && error.status < 500 && error.status !== 408;
}

function outcomeUnknown(error: unknown): ToolError {
  const note = 'The creation may have happened: check before creating again, with a new idempotencyKey (this one stays reserved).';
  if (error instanceof B2Error) return new ToolError(error.status, error.code, `${error.message}. ${note}`, error.requestId);
  return new ToolError(500, 'secret_creation_unknown', `The call was interrupted. ${note}`);
}

function claimFor(store: SecretStore, ids: IdempotencyIds, tool: string): CreationClaim {
  try {
    return store.claim(tool, ids);
  } catch (error) {
    if (error instanceof SecretSinkError) {
      throw new ToolError(500, 'secret_sink_unavailable', `${error.message} Nothing was created.`);
    }
    throw error;
  }
}

export async function createWithSecret<R extends { applicationKey: string }>(
  args: ToolArgs,
  context: ToolContext,
  spec: SecretCreation<R>,
): Promise<ToolOutcome> {
  const { tool } = spec;
  const store = context.secrets;
  if (!store) throw new ToolError(410, 'tool_unavailable', `${tool} is unavailable: no secret sink is configured for it.`);
  const ids = idempotencyIds(tool, context.callerId ?? 'anonymous', args);
  const claim = claimFor(store, ids, tool);
  if (claim.replay) {
    const { result, receipt } = claim.replay;
    const where = receipt ? { secretSink: receipt } : { note: 'The secret was returned only by the original call.' };
    return { structured: { ...withoutSecret(result as R), ...where, idempotentReplay: true } };
  }

  let created: R;
  try {
    created = await spec.create();
  } catch (error) {
    if (!certainlyNotCreated(error)) throw outcomeUnknown(error);
    claim.release();
    throw error;
  }

  const redacted = withoutSecret(created);
  let receipt: SinkReceipt | undefined;
  try {
    receipt = await store.commit(tool, ids, created, redacted);
  } catch (error) {
    const reason = error instanceof SecretSinkError ? error.message : 'the secret ledger failed';
    throw await undoAfterSinkFailure(context, spec, created, claim, reason, error instanceof SecretSinkError && error.ambiguous);
  }
  claim.release();

  if (store.mode === 'inline') return { structured: { ...created, warning: INLINE_SECRET_WARNING }, containsSecret: true };
  return { structured: { ...redacted, secretSink: receipt } };
}

/** The secret cannot be kept, so it must not exist either: undo on B2, and say what happened. */
async function undoAfterSinkFailure<R extends { applicationKey: string }>(
  context: ToolContext,
  spec: SecretCreation<R>,
  created: R,
  claim: CreationClaim,
  reason: string,
  ambiguous: boolean,
): Promise<ToolError> {
  const what = spec.describe(created);
  let recovery: 'undone' | 'failed' | 'unavailable' = 'unavailable';
  let undoError = '';
  if (spec.undo) {
    try {
      await spec.undo.run(created);
      recovery = 'undone';
    } catch (error) {
      recovery = 'failed';
      undoError = error instanceof B2Error || error instanceof ToolError ? ` (${error.code})` : '';
    }
  }
  context.logger.error('secret_sink.write_failed', { tool: spec.tool, recovery, ambiguous });
  // A ledger that may hold part of the record keeps the reservation for the operator to reconcile.
  if (recovery === 'undone' && !ambiguous) claim.release();
  const outcome =
    recovery === 'undone'
      ? `The creation was undone: the ${what} was ${spec.undo!.done}.`
      : recovery === 'failed'
        ? `Undoing it failed${undoError}: the ${what} exists but its secret was not kept; delete it by hand.`
        : `B2 offers no way to undo it: the ${what} exists but its secret was not kept.`;
  return ambiguous
    ? new ToolError(500, 'secret_sink_commit_ambiguous', `${reason} ${outcome}`)
    : new ToolError(500, 'secret_sink_write_failed', `Could not store the new secret: ${reason} ${outcome}`);
}
