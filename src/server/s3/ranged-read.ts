/**
 * A ranged read the model sees must not hand over part of a secret that the rest of the object
 * completes (two reads, each of one half). So the read is widened by the sanitizer's scan margin
 * on both sides, the sanitizer redacts every secret that overlaps the requested window, and only
 * the window is returned. A ranged copy is checked at its two ends the same way.
 */
import type { Sanitizer } from '../policy/sanitize.js';
import { ToolError } from '../errors.js';

/** A `bytes=` range as the tool's schema admits it: first-last, first- or -suffix. */
export type ByteRange = { first: number; last: number | undefined } | { suffix: number };

export function parseByteRange(range: string): ByteRange | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(range);
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') return { suffix: Number(match[2]) };
  const first = Number(match[1]);
  const last = match[2] === '' ? undefined : Number(match[2]);
  // A range that ends before it starts is the store's to refuse.
  return last !== undefined && last < first ? undefined : { first, last };
}

/** The range to fetch: `margin` more bytes on each side. */
export function widenRange(range: ByteRange, margin: number): string {
  if ('suffix' in range) return `bytes=-${range.suffix + margin}`;
  const first = Math.max(0, range.first - margin);
  return `bytes=${first}-${range.last === undefined ? '' : range.last + margin}`;
}

/** Where the fetched bytes start in the object, and its size, from `bytes first-last/size`. */
function fetchedPlace(contentRange: string | undefined, fetchedLength: number): { start: number; size: number | undefined } {
  const match = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(contentRange ?? '');
  // No Content-Range: the store sent the whole object.
  if (!match) return { start: 0, size: fetchedLength };
  return { start: Number(match[1]), size: match[2] === '*' ? undefined : Number(match[2]) };
}

export interface RequestedWindow {
  /** The requested bytes' place within the fetched ones. */
  start: number;
  end: number;
  /** `bytes first-last/size` of the requested bytes in the object. */
  contentRange: string;
}

/** The requested range within the fetched (widened) bytes; 416 when none of it exists. */
export function requestedWindow(range: ByteRange, fetchedLength: number, contentRange: string | undefined): RequestedWindow {
  const fetched = fetchedPlace(contentRange, fetchedLength);
  const fetchedEnd = fetched.start + fetchedLength;
  const first = 'suffix' in range ? Math.max(fetched.start, fetchedEnd - range.suffix) : range.first;
  const end = 'suffix' in range || range.last === undefined ? fetchedEnd : Math.min(range.last + 1, fetchedEnd);
  if (first >= end)
    throw new ToolError(416, 'InvalidRange', `The requested range lies outside the object (${fetched.size ?? 'unknown'} bytes).`);
  return { start: first - fetched.start, end: end - fetched.start, contentRange: `bytes ${first}-${end - 1}/${fetched.size ?? '*'}` };
}

/** The bytes of the object from `first` on (up to `length`), and where they start. */
export type ReadAround = (first: number, length: number) => Promise<{ bytes: Buffer; contentRange?: string | undefined }>;

/**
 * A ranged copy must not cut a secret either: its new object would hold a piece of it, too
 * short for the sanitizer to know. Throws when a secret in the source lies across either end of
 * [first, last]; a secret wholly inside or outside is left to the sanitizer's usual work.
 */
export async function refuseCutSecrets(
  read: ReadAround,
  first: number,
  last: number,
  redaction: Pick<Sanitizer, 'window' | 'scanMargin'>,
): Promise<void> {
  const margin = redaction.scanMargin;
  for (const edge of [first, last + 1]) {
    if (edge === 0) continue;
    const { bytes, contentRange } = await read(Math.max(0, edge - margin), 2 * margin);
    const at = edge - fetchedPlace(contentRange, bytes.length).start;
    // The edge falls between bytes at-1 and at; past the end of the object there is nothing to cut.
    if (at <= 0 || at >= bytes.length) continue;
    const secretAt = (index: number) => !redaction.window(bytes, index, index + 1).equals(bytes.subarray(index, index + 1));
    if (secretAt(at - 1) && secretAt(at)) {
      throw new ToolError(
        403,
        'range_cuts_secret',
        `copySourceRange bytes=${first}-${last} cuts through a credential stored in the source object at byte ${edge}; copy the whole object, or a range that does not cut it.`,
      );
    }
  }
}
