/**
 * What `b2_create_key` may mint, checked after the confirmation gate and before any B2 call
 * (contract §2.6). The operator widens it through the environment; refusals do not tell the
 * model how (it should ask the human, who can ask the operator).
 */
import type { B2CreateKeyRequest } from '../b2/types.js';
import type { KeyPolicy } from '../config.js';
import { ToolError } from './definition.js';

export const KEY_MANAGEMENT_CAPABILITIES = ['listKeys', 'writeKeys', 'deleteKeys'] as const;

const violation = (message: string) => new ToolError(403, 'key_policy_violation', `${message} Ask the server's operator if this key is really needed.`);

export function checkKeyPolicy(request: B2CreateKeyRequest, policy: KeyPolicy): void {
  const granted = KEY_MANAGEMENT_CAPABILITIES.filter((c) => request.capabilities.includes(c));
  if (granted.length > 0 && !policy.allowKeyManagementGrants) {
    throw violation(`This server does not create keys that manage other keys (${granted.join(', ')}).`);
  }
  const writes = request.capabilities.filter((c) => c.startsWith('write') || c.startsWith('delete'));
  if (writes.length > 0 && !request.bucketIds?.length && !policy.allowUnscopedKeys) {
    throw violation(`Keys with write or delete capabilities (${writes.join(', ')}) must be restricted to buckets: pass bucketIds.`);
  }
  const max = policy.maxKeyDurationSeconds;
  if (max !== undefined && (request.validDurationInSeconds === undefined || request.validDurationInSeconds > max)) {
    throw violation(`Keys created here must expire: pass validDurationInSeconds of at most ${max}.`);
  }
}
