/**
 * What `b2_create_key` may mint, checked after the confirmation gate and before any B2 call
 * (contract §2.6). The operator widens it through the environment; refusals do not tell the
 * model how (it should ask the human, who can ask the operator).
 */
import type { B2CreateKeyRequest } from '../b2/types.js';
import type { KeyPolicy } from '../config.js';
import { ToolError } from '../errors.js';
import type { B2Capability } from '../b2/capabilities.js';

const KEY_MANAGEMENT_CAPABILITIES = ['listKeys', 'writeKeys', 'deleteKeys'] as const;

/** What a capability lets the holder of a new key do beyond its own files: spelled out to the human who approves it. */
export const KEY_CAPABILITY_RISKS = {
  bypassGovernance: 'can lift governance-mode retention and delete the files it protects',
  shareFiles: 'can hand out download links to private files',
  writeKeys: 'can create more keys',
  deleteKeys: 'can delete keys, locking their users out',
  writeBucketReplications: 'can copy buckets into another account',
  writeBucketNotifications: 'can send bucket events to any webhook',
} as const satisfies Partial<Record<B2Capability, string>>;

const violation = (message: string) =>
  new ToolError(403, 'key_policy_violation', `${message} Ask the server's operator if this key is really needed.`);

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
