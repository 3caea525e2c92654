import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BodyTooLargeError, lingerOnClose, readBodyWithin } from '../../src/server/transports/body-limit.js';

const LIMIT = 16;

/** A request stand-in: a stream with headers, fed the given chunks then ended. */
function request(chunks: Buffer[], headers: Record<string, string> = {}, end: 'end' | 'close' | 'error' = 'end'): IncomingMessage {
  const stream = Object.assign(new PassThrough(), { headers }) as unknown as IncomingMessage & PassThrough;
  queueMicrotask(() => {
    for (const chunk of chunks) stream.write(chunk);
    if (end === 'end') stream.end();
    else if (end === 'error') stream.destroy(new Error('socket hang up'));
    else stream.emit('close');
  });
  return stream;
}

describe('readBodyWithin: the request body limit at its boundary and one past it', () => {
  it('a body of exactly the limit is read whole, across chunks', async () => {
    const body = await readBodyWithin(request([Buffer.alloc(10, 'a'), Buffer.alloc(LIMIT - 10, 'b')]), LIMIT);
    expect(body.toString()).toBe('a'.repeat(10) + 'b'.repeat(LIMIT - 10));
  });

  it('one byte past the limit is refused with the limit named', async () => {
    const refusal = readBodyWithin(request([Buffer.alloc(10), Buffer.alloc(LIMIT - 9)]), LIMIT);
    await expect(refusal).rejects.toBeInstanceOf(BodyTooLargeError);
    await expect(refusal).rejects.toMatchObject({ limit: LIMIT, message: `Request body exceeds ${LIMIT} bytes`, name: 'BodyTooLargeError' });
  });

  it('a declared Content-Length of the limit is read; one past it is refused before any byte is read', async () => {
    expect((await readBodyWithin(request([Buffer.alloc(LIMIT)], { 'content-length': String(LIMIT) }), LIMIT)).byteLength).toBe(LIMIT);
    await expect(readBodyWithin(request([], { 'content-length': String(LIMIT + 1) }), LIMIT)).rejects.toBeInstanceOf(BodyTooLargeError);
  });

  it('an empty body is an empty buffer; a connection closed or broken mid-body is an error, not a body', async () => {
    expect((await readBodyWithin(request([]), LIMIT)).byteLength).toBe(0);
    await expect(readBodyWithin(request([Buffer.from('abc')], {}, 'close'), LIMIT)).rejects.toThrow('client closed the connection before the body ended');
    await expect(readBodyWithin(request([Buffer.from('abc')], {}, 'error'), LIMIT)).rejects.toThrow('socket hang up');
  });
});

describe('readBodyWithin leaves nothing attached to the request', () => {
  const listeners = (req: IncomingMessage) => ['data', 'end', 'error', 'close'].map((event) => req.listenerCount(event));

  it('after a body is read, refused, or broken off, none of its four listeners remains', async () => {
    const read = request([Buffer.from('abc')]);
    await readBodyWithin(read, LIMIT);
    expect(listeners(read)).toEqual([0, 0, 0, 0]);
    const refused = request([Buffer.alloc(LIMIT + 1)]);
    await expect(readBodyWithin(refused, LIMIT)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(listeners(refused)).toEqual([0, 0, 0, 0]);
    const closed = request([Buffer.from('abc')], {}, 'close');
    await expect(readBodyWithin(closed, LIMIT)).rejects.toThrow('client closed');
    expect(listeners(closed)).toEqual([0, 0, 0, 0]);
  });
});

describe('lingerOnClose: a refused upload is half-closed, drained, then closed after 2 s', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends and drains the socket at once, destroys it only when the linger time is up', () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const socket = { end: () => calls.push('end'), resume: () => calls.push('resume'), destroy: () => calls.push('destroy') } as unknown as Socket;
    lingerOnClose({ socket } as IncomingMessage);
    expect(calls).toEqual([]);
    socket.destroySoon();
    expect(calls).toEqual(['end', 'resume']);
    vi.advanceTimersByTime(1_999);
    expect(calls).toEqual(['end', 'resume']);
    vi.advanceTimersByTime(1);
    expect(calls).toEqual(['end', 'resume', 'destroy']);
  });
});
