import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BodyTooLargeError, lingerOnClose, nodeBodyStream, readBodyWithin } from '../../../src/server/transports/body-limit.js';

const LIMIT = 16;

/** A request whose body streams the given chunks, then ends or fails. */
function request(
  chunks: Uint8Array[],
  headers: Record<string, string> = {},
  end: 'end' | 'error' = 'end',
): { request: Request; pulled: () => number } {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[pulled++];
      if (chunk) controller.enqueue(chunk);
      else if (end === 'end') controller.close();
      else controller.error(new Error('socket hang up'));
    },
  });
  return {
    request: new Request('http://localhost/mcp', { method: 'POST', headers, body, duplex: 'half' } as RequestInit),
    pulled: () => pulled,
  };
}

describe('readBodyWithin: the request body limit at its boundary and one past it', () => {
  it('a body of exactly the limit is read whole, across chunks', async () => {
    const body = await readBodyWithin(request([new Uint8Array(10).fill(97), new Uint8Array(LIMIT - 10).fill(98)]).request, LIMIT);
    expect(new TextDecoder().decode(body)).toBe('a'.repeat(10) + 'b'.repeat(LIMIT - 10));
  });

  it('one byte past the limit is refused with the limit named, and the rest is not read', async () => {
    const source = request([new Uint8Array(10), new Uint8Array(LIMIT - 9), new Uint8Array(100), new Uint8Array(100)]);
    const refusal = readBodyWithin(source.request, LIMIT);
    await expect(refusal).rejects.toBeInstanceOf(BodyTooLargeError);
    await expect(refusal).rejects.toMatchObject({
      limit: LIMIT,
      message: `Request body exceeds ${LIMIT} bytes`,
      name: 'BodyTooLargeError',
    });
    expect(source.pulled()).toBeLessThan(4);
  });

  it('a declared Content-Length of the limit is read; one past it is refused before any byte is read', async () => {
    expect((await readBodyWithin(request([new Uint8Array(LIMIT)], { 'content-length': String(LIMIT) }).request, LIMIT)).byteLength).toBe(
      LIMIT,
    );
    const declared = request([new Uint8Array(1)], { 'content-length': String(LIMIT + 1) });
    await expect(readBodyWithin(declared.request, LIMIT)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(declared.pulled()).toBe(0);
  });

  it('an empty or absent body is empty; a body that breaks mid-way is an error, not a body', async () => {
    expect((await readBodyWithin(request([]).request, LIMIT)).byteLength).toBe(0);
    expect((await readBodyWithin(new Request('http://localhost/mcp'), LIMIT)).byteLength).toBe(0);
    await expect(readBodyWithin(request([new Uint8Array(3)], {}, 'error').request, LIMIT)).rejects.toThrow('socket hang up');
  });
});

/** A Node request stand-in: a stream with headers, fed the given chunks then ended, closed early or broken. */
function nodeRequest(chunks: Buffer[], end: 'end' | 'close' | 'error' = 'end'): IncomingMessage {
  const stream = Object.assign(new PassThrough(), { headers: {} }) as unknown as IncomingMessage & PassThrough;
  queueMicrotask(() => {
    for (const chunk of chunks) stream.write(chunk);
    if (end === 'end') stream.end();
    else if (end === 'error') stream.destroy(new Error('socket hang up'));
    else stream.emit('close');
  });
  return stream;
}

const viaNode = (req: IncomingMessage): Request =>
  new Request('http://localhost/mcp', { method: 'POST', body: nodeBodyStream(req), duplex: 'half' } as RequestInit);

describe('nodeBodyStream: a Node request body as a Web stream', () => {
  const listeners = (req: IncomingMessage) => ['data', 'end', 'error', 'close'].map((event) => req.listenerCount(event));

  it('streams the whole body; a connection closed or broken mid-body is an error, not a body', async () => {
    const read = nodeRequest([Buffer.from('ab'), Buffer.from('c')]);
    expect(new TextDecoder().decode(await readBodyWithin(viaNode(read), LIMIT))).toBe('abc');
    await expect(readBodyWithin(viaNode(nodeRequest([Buffer.from('abc')], 'close')), LIMIT)).rejects.toThrow(
      'client closed the connection before the body ended',
    );
    await expect(readBodyWithin(viaNode(nodeRequest([Buffer.from('abc')], 'error')), LIMIT)).rejects.toThrow('socket hang up');
  });

  it('after a body is read, refused, or broken off, none of its four listeners remains', async () => {
    const read = nodeRequest([Buffer.from('abc')]);
    await readBodyWithin(viaNode(read), LIMIT);
    expect(listeners(read)).toEqual([0, 0, 0, 0]);
    const refused = nodeRequest([Buffer.alloc(LIMIT + 1)]);
    await expect(readBodyWithin(viaNode(refused), LIMIT)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(listeners(refused)).toEqual([0, 0, 0, 0]);
    const closed = nodeRequest([Buffer.from('abc')], 'close');
    await expect(readBodyWithin(viaNode(closed), LIMIT)).rejects.toThrow('client closed');
    expect(listeners(closed)).toEqual([0, 0, 0, 0]);
  });
});

describe('readBodyWithin: a declared length with no body', () => {
  it('is refused by its declared length alone', async () => {
    const declared = new Request('http://localhost/mcp', { method: 'POST', headers: { 'content-length': String(LIMIT + 1) } });
    await expect(readBodyWithin(declared, LIMIT)).rejects.toBeInstanceOf(BodyTooLargeError);
  });
});

describe('nodeBodyStream: backpressure', () => {
  it('pauses the socket once the unread queue is full, and resumes it as the body is read', async () => {
    const req = Object.assign(new PassThrough(), { headers: {} }) as unknown as IncomingMessage & PassThrough;
    const reader = nodeBodyStream(req).getReader();
    req.write(Buffer.from('a'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(req.isPaused()).toBe(true);
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('a');
    expect(req.isPaused()).toBe(false);
    req.end(Buffer.from('b'));
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('b');
    expect((await reader.read()).done).toBe(true);
  });
});

describe('lingerOnClose: a refused upload is half-closed, drained, then closed after 2 s', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends and drains the socket at once, destroys it only when the linger time is up', () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const socket = {
      end: () => calls.push('end'),
      resume: () => calls.push('resume'),
      destroy: () => calls.push('destroy'),
    } as unknown as Socket;
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
