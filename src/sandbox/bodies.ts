/** Stored file bodies: building them, hashing them, and streaming them (whole or a byte range). */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { StoredBody } from './model.js';

const FILLER_BLOCK = (() => {
  const block = Buffer.alloc(64 * 1024);
  for (let i = 0; i < block.length; i++) block[i] = (i * 31 + 7) & 0xff;
  return block;
})();

export function bytesBody(data: Buffer): StoredBody {
  return { kind: 'bytes', data };
}

const fillerBodies = new Map<number, StoredBody>();
/** Deterministic synthetic content of `size` bytes; one shared object per size. */
export function fillerBody(size: number): StoredBody {
  let body = fillerBodies.get(size);
  if (!body) {
    body = { kind: 'filler', size };
    fillerBodies.set(size, body);
  }
  return body;
}

export function bodySize(body: StoredBody): number {
  return body.kind === 'bytes' ? body.data.length : body.size;
}

/** Byte chunks of `body` in [start, end) — streamed, never materialized whole. */
async function* chunksOf(body: StoredBody, start: number, end: number): AsyncGenerator<Buffer> {
  if (start >= end) return;
  switch (body.kind) {
    case 'bytes':
      yield body.data.subarray(start, end);
      return;
    case 'filler':
      for (let at = start; at < end; ) {
        const offset = at % FILLER_BLOCK.length;
        const n = Math.min(FILLER_BLOCK.length - offset, end - at);
        yield FILLER_BLOCK.subarray(offset, offset + n);
        at += n;
      }
      return;
    case 'file':
      for await (const chunk of createReadStream(body.path, { start, end: end - 1 })) yield chunk as Buffer;
      return;
    case 'concat': {
      let base = 0;
      for (const piece of body.pieces) {
        const size = bodySize(piece);
        const from = Math.max(start, base);
        const to = Math.min(end, base + size);
        if (from < to) yield* chunksOf(piece, from - base, to - base);
        base += size;
        if (base >= end) return;
      }
    }
  }
}

/** A readable stream of the body, or of the inclusive byte range `[first, last]`. */
export function openBody(body: StoredBody, range?: { first: number; last: number }): Readable {
  const size = bodySize(body);
  const start = range ? range.first : 0;
  const end = range ? Math.min(range.last + 1, size) : size;
  return Readable.from(chunksOf(body, start, end), { objectMode: false });
}

const fillerSha1 = new Map<number, string>();
/** Hex SHA-1 of a body (cached per size for filler bodies). */
export async function sha1Of(body: StoredBody): Promise<string> {
  if (body.kind === 'bytes') return createHash('sha1').update(body.data).digest('hex');
  if (body.kind === 'filler') {
    const cached = fillerSha1.get(body.size);
    if (cached) return cached;
  }
  const hash = createHash('sha1');
  for await (const chunk of chunksOf(body, 0, bodySize(body))) hash.update(chunk);
  const hex = hash.digest('hex');
  if (body.kind === 'filler') fillerSha1.set(body.size, hex);
  return hex;
}

export function md5Hex(data: Buffer): string {
  return createHash('md5').update(data).digest('hex');
}
