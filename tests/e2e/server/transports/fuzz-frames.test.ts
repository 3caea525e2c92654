/**
 * Malformed JSON-RPC frames: on stdio (raw child process) and on HTTP
 * (`b2-mcp http --port 0`, server credential mode), every frame the server cannot use gets a
 * clear JSON-RPC error — parse error, invalid request, unknown method, invalid params — and the
 * process stays up: a valid `tools/list` succeeds afterwards, and stderr holds JSON logs only.
 * Hand-written frames pin the expected codes; fast-check adds generated garbage on top.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from '../../../../src/contract/constants.js';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import {
  ALL_KEY_CAPABILITIES,
  createKey,
  startTestSandbox,
  type SandboxKey,
  sandboxCredentials,
} from '../../../support/sandbox-harness.js';
import { serverEnv, startHttpServer, type HttpServer } from '../../../support/server-harness.js';
import { standardHeaders } from '../../../support/http-client.js';
import { isClearJsonRpcError, RawStdioServer, STACK_TRACE, stderrProblems, type JsonRpcResponse } from '../../../support/fuzz.js';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const MIB = 1024 * 1024;

let sandbox: RunningSandbox;
let key: SandboxKey;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
});

afterAll(async () => {
  await sandbox?.close();
});

const nestedArrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const call = (id: unknown, args: string, name = 'b2_list_buckets') =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`;

/**
 * One frame and the error it must get: `id` is the id the answer carries (null when the server
 * cannot read one), `code` the JSON-RPC error code.
 */
interface FrameCase {
  name: string;
  frame: string | Buffer;
  id: string | number | null;
  code: number;
}

const STDIO_CASES: FrameCase[] = [
  { name: 'truncated JSON', frame: '{"jsonrpc":"2.0","id":100,"method":"tools/li', id: null, code: PARSE_ERROR },
  { name: 'not JSON at all', frame: 'hello there', id: null, code: PARSE_ERROR },
  { name: 'invalid UTF-8', frame: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), id: null, code: PARSE_ERROR },
  { name: 'a byte-order mark before the JSON', frame: '\ufeff{"jsonrpc":"2.0","id":101,"method":"ping"}', id: null, code: PARSE_ERROR },
  { name: 'an object id', frame: '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', id: null, code: INVALID_REQUEST },
  { name: 'an array id', frame: '{"jsonrpc":"2.0","id":[1],"method":"tools/list"}', id: null, code: INVALID_REQUEST },
  { name: 'a boolean id', frame: '{"jsonrpc":"2.0","id":true,"method":"tools/list"}', id: null, code: INVALID_REQUEST },
  { name: 'a null id', frame: '{"jsonrpc":"2.0","id":null,"method":"ping"}', id: null, code: INVALID_REQUEST },
  { name: 'a numeric method', frame: '{"jsonrpc":"2.0","id":102,"method":42}', id: 102, code: INVALID_REQUEST },
  { name: 'a null method', frame: '{"jsonrpc":"2.0","id":103,"method":null}', id: 103, code: INVALID_REQUEST },
  { name: 'string params', frame: '{"jsonrpc":"2.0","id":104,"method":"tools/list","params":"x"}', id: 104, code: INVALID_REQUEST },
  { name: 'array params', frame: '{"jsonrpc":"2.0","id":105,"method":"tools/list","params":[1]}', id: 105, code: INVALID_REQUEST },
  { name: 'no jsonrpc member', frame: '{"id":106,"method":"ping"}', id: 106, code: INVALID_REQUEST },
  { name: 'jsonrpc 1.0', frame: '{"jsonrpc":"1.0","id":"v1","method":"ping"}', id: 'v1', code: INVALID_REQUEST },
  { name: 'a notification with a numeric method', frame: '{"jsonrpc":"2.0","method":5}', id: null, code: INVALID_REQUEST },
  { name: 'an empty batch', frame: '[]', id: null, code: INVALID_REQUEST },
  {
    name: 'a batch of requests',
    frame: '[{"jsonrpc":"2.0","id":107,"method":"ping"},{"jsonrpc":"2.0","id":108,"method":"ping"}]',
    id: null,
    code: INVALID_REQUEST,
  },
  { name: 'a batch of numbers', frame: '[1,2,3]', id: null, code: INVALID_REQUEST },
  { name: 'a bare number', frame: '42', id: null, code: INVALID_REQUEST },
  { name: 'a bare string', frame: '"tools/list"', id: null, code: INVALID_REQUEST },
  { name: 'null', frame: 'null', id: null, code: INVALID_REQUEST },
  { name: 'an unknown method', frame: '{"jsonrpc":"2.0","id":109,"method":"nope/nope"}', id: 109, code: METHOD_NOT_FOUND },
  {
    name: 'an unknown method with a string id',
    frame: '{"jsonrpc":"2.0","id":"x-1","method":"resources/list"}',
    id: 'x-1',
    code: METHOD_NOT_FOUND,
  },
  { name: 'numeric tool arguments', frame: call(110, '5'), id: 110, code: INVALID_PARAMS },
  { name: 'array tool arguments', frame: call(111, '[]'), id: 111, code: INVALID_PARAMS },
  {
    name: 'a numeric tool name',
    frame: '{"jsonrpc":"2.0","id":112,"method":"tools/call","params":{"name":5}}',
    id: 112,
    code: INVALID_PARAMS,
  },
  { name: 'an unknown tool', frame: call(113, '{}', 'b2_no_such_tool'), id: 113, code: INVALID_PARAMS },
  { name: 'a __proto__ argument', frame: call(114, '{"__proto__":{"confirm":true}}'), id: 114, code: INVALID_PARAMS },
  { name: 'a frame past the 10 MiB limit', frame: `{"pad":"${'x'.repeat(11 * MIB)}"}`, id: null, code: INVALID_REQUEST },
  { name: '100,000 nested arrays', frame: nestedArrays(100_000), id: null, code: INVALID_REQUEST },
];

/** Frames that get no answer at all (a response to nothing, blank lines), by JSON-RPC rules. */
const SILENT_FRAMES = [
  '',
  '   ',
  '\r',
  '{"jsonrpc":"2.0","id":999,"result":{}}',
  '{"jsonrpc":"2.0","id":998,"error":{"code":1,"message":"x"}}',
  '{"jsonrpc":"2.0","id":997,"result":5}',
];

function expectClearError(
  response: JsonRpcResponse | undefined,
  expected: { id: string | number | null; code: number },
  label: string,
): void {
  expect(response, `${label}: no answer`).toBeDefined();
  expect(isClearJsonRpcError(response!), `${label}: ${JSON.stringify(response)}`).toBe(true);
  expect(response!.error!.code, label).toBe(expected.code);
  expect(response!.id, label).toBe(expected.id);
  expect(STACK_TRACE.test(String(response!.error!.message)), label).toBe(false);
}

describe('malformed frames on stdio', () => {
  let server: RawStdioServer;

  beforeAll(async () => {
    server = RawStdioServer.start(
      serverEnv({
        LOG_LEVEL: 'warn',
        B2_MCP_PROFILE: 'full',
        ...sandboxCredentials(sandbox, key),
      }),
    );
    expect((await server.initialize()).result?.protocolVersion).toBeDefined();
  });

  afterAll(async () => {
    await server?.close();
  });

  const answerTo = async (frame: FrameCase): Promise<JsonRpcResponse | undefined> => {
    if (frame.id === null) {
      await server.write(frame.frame);
      return server.nextAnonymous();
    }
    const answered = server.responseTo(frame.id);
    await server.write(frame.frame);
    return answered;
  };

  it.each(STDIO_CASES.map((frame) => [frame.name, frame] as const))(
    '%s: a clear JSON-RPC error, and the server goes on',
    async (_name, frame) => {
      expectClearError(await answerTo(frame), frame, frame.name);
      const listed = await server.request('tools/list');
      expect((listed.result!.tools as unknown[]).length).toBe(40);
    },
  );

  it('responses to nothing and blank lines are ignored without an answer', async () => {
    for (const frame of SILENT_FRAMES) await server.write(frame);
    expect((await server.request('ping')).result).toEqual({});
    expect(await server.nextAnonymous(200)).toBeUndefined();
  });

  it('a frame written a byte at a time, and one just under the limit, are served', async () => {
    const answered = server.responseTo(200);
    for (const byte of Buffer.from('{"jsonrpc":"2.0","id":200,"method":"tools/list"}')) await server.write(Buffer.from([byte]), false);
    await server.write('');
    expect((await answered).result?.tools).toHaveLength(40);

    const big = await server.request('tools/call', { name: 'b2_list_buckets', arguments: { bucketName: 'b'.repeat(9 * MIB) } });
    expect(big.result?.isError).toBe(true);
    expect((big.result!.content as Array<{ text: string }>)[0]!.text).toMatch(/^B2 Error \[\w+\] \(HTTP \d{3}\): /);
  });

  it('generated garbage lines: each gets a parse error or an invalid-request error', async () => {
    const garbage = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }),
      fc.json().filter((text) => !text.startsWith('{')),
      // a notification whose method is not a string (a string one would be a valid notification, silently ignored)
      fc
        .jsonValue()
        .filter((value) => typeof value !== 'string')
        .map((value) => JSON.stringify({ jsonrpc: '2.0', method: value })),
      fc.tuple(fc.jsonValue(), fc.jsonValue()).map(([id, params]) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: Array.isArray(id) || (id !== null && typeof id === 'object') ? id : [id],
          method: 'tools/list',
          params,
        }),
      ),
    );
    await fc.assert(
      fc.asyncProperty(garbage, async (line) => {
        const clean = line.replace(/[\r\n]/g, ' ');
        if (clean.trim() === '') return;
        await server.write(clean);
        const response = await server.nextAnonymous();
        if (!response || !isClearJsonRpcError(response) || ![PARSE_ERROR, INVALID_REQUEST].includes(response.error!.code as number)) {
          throw new Error(`${JSON.stringify(clean).slice(0, 200)} got ${JSON.stringify(response)}`);
        }
      }),
      { numRuns: 300, seed: 4242 },
    );
  });

  it('afterwards the process is up, answers tools/list, and stderr holds only warn-level JSON logs', async () => {
    expect(server.alive).toBe(true);
    expect((await server.request('tools/list')).result?.tools).toHaveLength(40);
    expect(stderrProblems(server.stderr)).toEqual([]);
    expect(server.stderr).toContain('"event":"stdio.invalid_frame"');
  });
});

describe('malformed requests on HTTP', () => {
  let http: HttpServer;
  let stderr = '';
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const meta = JSON.stringify(envelope);

  beforeAll(async () => {
    http = await startHttpServer(
      serverEnv({
        B2_HTTP_CREDENTIAL_MODE: 'server',
        B2_MCP_PROFILE: 'full',
        ...sandboxCredentials(sandbox, key),
        // The cases below are many requests from one client in a burst.
        B2_MCP_RATE_LIMIT_RPS: '10000',
        B2_MCP_RATE_LIMIT_BURST: '10000',
      }),
    );
    http.process.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  });

  afterAll(async () => {
    await http?.stop();
  });

  /** The standard headers a modern client would send beside `body`, when it parses as a modern message. */
  const headersFor = (body: string | Buffer): Record<string, string> => {
    try {
      return standardHeaders(JSON.parse(String(body)));
    } catch {
      return {};
    }
  };

  const post = async (body: string | Buffer, contentType = 'application/json') => {
    const response = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': contentType, accept: 'application/json, text/event-stream', ...headersFor(body) },
      body,
    });
    const text = await response.text();
    return { status: response.status, text };
  };

  /** The JSON-RPC message in a response body (JSON, or the first SSE `data:` line). */
  const messageOf = (text: string): JsonRpcResponse =>
    JSON.parse(text.startsWith('event:') || text.startsWith('data:') ? /^data: (.*)$/m.exec(text)![1]! : text) as JsonRpcResponse;

  const HTTP_CASES: Array<FrameCase & { status: number }> = [
    { name: 'truncated JSON', frame: '{"jsonrpc":"2.0","id":1,"method":"tools/li', id: null, code: PARSE_ERROR, status: 400 },
    { name: 'an empty body', frame: '', id: null, code: PARSE_ERROR, status: 400 },
    { name: 'invalid UTF-8', frame: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), id: null, code: PARSE_ERROR, status: 400 },
    {
      name: 'an object id',
      frame: `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list","params":{"_meta":${meta}}}`,
      id: null,
      code: INVALID_REQUEST,
      status: 400,
    },
    {
      name: 'a numeric method',
      frame: `{"jsonrpc":"2.0","id":2,"method":42,"params":{"_meta":${meta}}}`,
      id: null,
      code: INVALID_REQUEST,
      status: 400,
    },
    {
      name: 'string params',
      frame: '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"x"}',
      id: 3,
      code: INVALID_REQUEST,
      status: 400,
    },
    { name: 'an empty batch', frame: '[]', id: null, code: INVALID_REQUEST, status: 400 },
    {
      name: 'a batch of modern requests',
      frame: `[{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":${meta}}},{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":${meta}}}]`,
      id: null,
      code: INVALID_REQUEST,
      status: 400,
    },
    { name: 'a bare number', frame: '42', id: null, code: INVALID_REQUEST, status: 400 },
    { name: '100,000 nested arrays', frame: nestedArrays(100_000), id: null, code: INVALID_REQUEST, status: 400 },
    {
      name: 'an unknown method',
      frame: `{"jsonrpc":"2.0","id":6,"method":"nope/nope","params":{"_meta":${meta}}}`,
      id: 6,
      code: METHOD_NOT_FOUND,
      status: 404,
    },
    {
      name: 'numeric tool arguments',
      frame: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"b2_list_buckets","arguments":5,"_meta":${meta}}}`,
      id: 7,
      code: INVALID_PARAMS,
      status: 200,
    },
    {
      name: 'a __proto__ argument (modern)',
      frame: `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"b2_list_buckets","arguments":{"__proto__":{"x":1}},"_meta":${meta}}}`,
      id: 8,
      code: INVALID_PARAMS,
      status: 200,
    },
    { name: 'a __proto__ argument (2025 era)', frame: call(9, '{"__proto__":{"confirm":true}}'), id: 9, code: INVALID_PARAMS, status: 200 },
    {
      name: 'an unsupported protocol revision',
      frame: `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"_meta":${JSON.stringify({ ...envelope, 'io.modelcontextprotocol/protocolVersion': '1999-01-01' })}}}`,
      id: 10,
      code: -32022,
      status: 400,
    },
  ];

  it.each(HTTP_CASES.map((frame) => [frame.name, frame] as const))(
    '%s: a clear JSON-RPC error with the right status',
    async (_name, frame) => {
      const { status, text } = await post(frame.frame);
      expect(status, text).toBe(frame.status);
      expectClearError(messageOf(text), frame, frame.name);
    },
  );

  it('a body that is not JSON-typed gets 415, an oversized one 413, both with a clear error', async () => {
    const typed = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', 'text/plain');
    expect(typed.status).toBe(415);
    expect(isClearJsonRpcError(messageOf(typed.text))).toBe(true);
    const oversized = await post(`{"pad":"${'x'.repeat(2 * MIB)}"}`);
    expect(oversized.status).toBe(413);
    expect(JSON.parse(oversized.text)).toEqual({ error: 'Request body too large' });
  });

  it('generated garbage bodies: a 4xx with a JSON-RPC error, never a 5xx', async () => {
    const body = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }),
      fc.json(),
      fc.jsonValue().map((value) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: value, params: { _meta: envelope } })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const { status, text: answer } = await post(text);
        if (status >= 500) throw new Error(`${JSON.stringify(text).slice(0, 200)} got HTTP ${status}: ${answer.slice(0, 200)}`);
        if (status >= 400 && !isClearJsonRpcError(messageOf(answer)))
          throw new Error(`${JSON.stringify(text).slice(0, 200)} got HTTP ${status}: ${answer.slice(0, 200)}`);
      }),
      { numRuns: 200, seed: 4343 },
    );
  });

  it('afterwards the process is up and answers tools/list; the log shows no internal error or raw stack trace', async () => {
    expect(http.process.exitCode).toBeNull();
    const { status, text } = await post(`{"jsonrpc":"2.0","id":99,"method":"tools/list","params":{"_meta":${meta}}}`);
    expect(status).toBe(200);
    expect(messageOf(text).result?.tools).toHaveLength(40);
    const problems = stderrProblems(stderr, ['info', 'warn', 'error']);
    expect(problems).toEqual([]);
    expect(stderr).not.toContain('"event":"http.internal_error"');
    // Errors the SDK reports are logged with what happened (they were once logged as {}).
    for (const line of stderr.split('\n').filter((entry) => entry.includes('"event":"http.mcp_error"'))) {
      expect((JSON.parse(line) as { error: { message?: string } }).error.message).toMatch(/\S/);
    }
  });
});
