import { ReadLimitError, type ReadBudget } from './reading-limits.js';

type Fetch = typeof fetch;

/**
 * An answer to an MCP request (a POST) that says the URL is no MCP endpoint for us: refused for
 * credentials (401, 403), not there (404, 405), or a 2xx that is neither JSON nor an event stream.
 * Other statuses are the protocol's own (a 2025-only server answers `server/discover` with 400).
 */
export interface OddAnswer {
  status: number;
  contentType: string;
  /** The start of the body, as the server sent it (untrusted). */
  text: string;
  /** Where a redirect to another origin pointed (untrusted); the SDK clients never follow one there. */
  location?: string;
}

/** What one connection's POSTs were answered with, for an error message that names the real cause. */
export interface HttpTrace {
  odd: OddAnswer[];
}

const ODD_TEXT_CHARS = 300;
const TELLING_STATUSES = new Set([401, 403, 404, 405]);
const MCP_CONTENT = /^\s*(?:text\/event-stream|application\/(?:[\w.+-]*\+)?json)/i;

/**
 * A fetch for the SDK clients' HTTP transports that reads every answer within the connection's
 * budget: a JSON body or one SSE event larger than the bound fails the request (and the
 * connection, through `budget.broken`) instead of being buffered whole, and every JSON-RPC message
 * is bounded (see ReadBudget.accept) before the SDK parses it.
 */
export function boundedFetch(budget: ReadBudget, trace: HttpTrace = { odd: [] }, base: Fetch = fetch): Fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const type = response.headers.get('content-type') ?? '';
    const elsewhere = redirectElsewhere(input, response);
    if (elsewhere !== undefined)
      trace.odd.push({ status: response.status, contentType: type, text: '', location: elsewhere.slice(0, ODD_TEXT_CHARS) });
    const post = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase() === 'POST';
    const odd = post && (TELLING_STATUSES.has(response.status) || (response.ok && response.status !== 202 && !MCP_CONTENT.test(type)));
    if (!response.body) {
      if (odd) trace.odd.push({ status: response.status, contentType: type, text: '' });
      return response;
    }
    if (/^\s*text\/event-stream/i.test(type) && response.ok) return withBody(response, response.body.pipeThrough(boundedEvents(budget)));
    const bytes = await readAtMost(response.body, budget, 'an HTTP body');
    if (odd) {
      trace.odd.push({
        status: response.status,
        contentType: type,
        text: new TextDecoder().decode(bytes.subarray(0, ODD_TEXT_CHARS * 4)).slice(0, ODD_TEXT_CHARS),
      });
    }
    if (/^\s*application\/(?:[\w.+-]*\+)?json/i.test(type) && response.ok) {
      const text = new TextDecoder().decode(bytes);
      const message = budget.accept(text, bytes.length, 'an HTTP body');
      if (message !== undefined) return withBody(response, JSON.stringify(message));
    }
    return withBody(response, bytes);
  };
}

/**
 * The target of a redirect to another origin. The SDK clients ask fetch not to follow redirects
 * and follow them only within the origin (elsewhere they would carry the `--header` values, a B2
 * key, to whoever the server names); such an answer then fails the connection, and says why.
 */
function redirectElsewhere(input: string | URL | Request, response: Response): string | undefined {
  const location = response.headers.get('location');
  if (response.status < 300 || response.status >= 400 || location === null) return undefined;
  const from = new URL(input instanceof Request ? input.url : String(input));
  try {
    return new URL(location, from).origin === from.origin ? undefined : location;
  } catch {
    return location;
  }
}

function withBody(response: Response, body: BodyInit): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding'); // fetch has decoded it already
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

async function readAtMost(body: ReadableStream<Uint8Array>, budget: ReadBudget, where: string): Promise<Uint8Array<ArrayBuffer>> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > budget.maxMessageBytes) {
      void reader.cancel().catch(() => {});
      throw budget.fail(new ReadLimitError('message', budget.maxMessageBytes, where));
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/**
 * Re-frame an SSE stream event by event: each event is bounded in size, and its `data` is passed
 * on bounded (or verbatim when it is not JSON). Newlines are looked for in new text only.
 */
function boundedEvents(budget: ReadBudget): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let partial = '';
  let lines: string[] = [];
  let eventBytes = 0;
  const tooLarge = () => budget.fail(new ReadLimitError('message', budget.maxMessageBytes, 'an SSE event'));

  const dispatch = (controller: TransformStreamDefaultController<Uint8Array>) => {
    const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
    let out = lines;
    if (data.length > 0) {
      const message = budget.accept(data.join('\n'), eventBytes, 'an SSE event');
      if (message !== undefined) out = [...lines.filter((line) => !line.startsWith('data:')), `data: ${JSON.stringify(message)}`];
    }
    controller.enqueue(encoder.encode(`${out.join('\n')}\n\n`));
    lines = [];
    eventBytes = 0;
  };

  const take = (text: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    let start = 0;
    let newline: number;
    while ((newline = text.indexOf('\n', start)) !== -1) {
      const line = (start === 0 ? partial + text.slice(0, newline) : text.slice(start, newline)).replace(/\r$/, '');
      if (start === 0) partial = '';
      start = newline + 1;
      if (line === '') {
        if (lines.length > 0) dispatch(controller);
        continue;
      }
      eventBytes += line.length + 1;
      if (eventBytes > budget.maxMessageBytes) throw tooLarge();
      lines.push(line);
    }
    partial = start === 0 ? partial + text : text.slice(start);
    if (eventBytes + partial.length > budget.maxMessageBytes) throw tooLarge();
  };

  return new TransformStream({
    transform(chunk, controller) {
      take(decoder.decode(chunk, { stream: true }), controller);
    },
    flush(controller) {
      take(`${decoder.decode()}\n\n`, controller);
    },
  });
}
