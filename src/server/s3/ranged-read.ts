/**
 * A ranged read the model sees must not hand over part of a secret that the rest of the object
 * completes (two reads, each of one half). So the read is widened by the sanitizer's scan margin
 * on both sides, the sanitizer redacts every secret that overlaps the requested window, and only
 * the window is returned.
 */
import { ToolError } from '../tools/definition.js';

/** A `bytes=` range as the tool's schema admits it: first-last, first- or -suffix. */
export type ByteRange = { first: number; last?: number } | { suffix: number };

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
function fetchedPlace(contentRange: string | undefined, fetchedLength: number): { start: number; size?: number } {
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
  if (first >= end) throw new ToolError(416, 'InvalidRange', `The requested range lies outside the object (${fetched.size ?? 'unknown'} bytes).`);
  return { start: first - fetched.start, end: end - fetched.start, contentRange: `bytes ${first}-${end - 1}/${fetched.size ?? '*'}` };
}
