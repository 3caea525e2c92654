/** Data-plane rules the `s3_*` tools share: inline size limit, part sizes, runtime capability checks. */
import { ToolError } from '../errors.js';

/** `s3_put_object` and inline `s3_get_object` move at most 1 MiB. */
export const INLINE_OBJECT_BYTES = 1_048_576;
/** Every multipart part except the last must reach 5 MiB. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;

/**
 * The schema may hide an option a credential lacks, but a caller can bypass the schema: the
 * handler checks again. `capabilities` null is the full-surface override.
 */
export function requireCapability(capabilities: ReadonlySet<string> | null, capability: string, action: string): void {
  if (capabilities !== null && !capabilities.has(capability)) {
    throw new ToolError(403, 'missing_capability', `${action} needs the ${capability} capability, which this key does not have.`);
  }
}

export const badArguments = (message: string) => new ToolError(400, 'invalid_arguments', message);

/** `sourceBucket/sourceKey` (a leading slash is tolerated) → its parts. */
export function splitCopySource(copySource: string): { bucket: string; key: string } {
  const path = copySource.startsWith('/') ? copySource.slice(1) : copySource;
  const slash = path.indexOf('/');
  if (slash <= 0 || slash === path.length - 1)
    throw badArguments(`copySource must be "sourceBucket/sourceKey", got ${JSON.stringify(copySource)}.`);
  return { bucket: path.slice(0, slash), key: path.slice(slash + 1) };
}
