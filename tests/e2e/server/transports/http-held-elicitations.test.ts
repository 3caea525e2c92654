/**
 * Confirmation questions held open by 2025-era clients over HTTP: each held question keeps one
 * in-flight slot, counted under the client's address as well as its key (so keys made up on one
 * address cannot fill the server for everyone else), and none is held past
 * B2_ELICITATION_TIMEOUT_MS, however many progress notifications the client sends about it.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { serverEnv, startHttpServer, type HttpServer } from '../../../support/server-harness.js';
import { JSON_HEADERS, modernMessage, postJson, rawRequest } from '../../../support/http-client.js';

const key = (name: string) => ({ 'x-b2-mcp-key-id': `${name}-id`, 'x-b2-mcp-key': `${name}-secret-0123456789` });
const ATTACKER_ADDRESS = { 'x-forwarded-for': '198.51.100.9' };
const BASE_ENV = {
  B2_MCP_PROFILE: 'default',
  B2_API_URL: 'http://127.0.0.1:9',
  B2_HTTP_CREDENTIAL_MODE: 'headers',
  B2_DESTRUCTIVE_POLICY: 'confirm',
  B2_TRUST_PROXY_HEADERS: 'true',
};

let server: HttpServer | undefined;
/** Calls still held when a test ends, closed before the server drains. */
const open: GatedCall[] = [];
afterEach(async () => {
  for (const call of open.splice(0)) call.abandon();
  await server?.stop();
  server = undefined;
});

/** Opens a 2025-06-18 session that can answer form elicitations; returns the headers that continue it. */
async function openSession(url: URL, headers: Record<string, string>): Promise<Record<string, string>> {
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'held', version: '1' } },
  };
  const opened = await postJson(url, initialize, headers);
  expect(opened.status).toBe(200);
  const session = { ...headers, 'mcp-session-id': String(opened.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
  expect((await postJson(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
  return session;
}

interface GatedCall {
  /** Settles once the question arrives (`held`, with its progress token) or the call is answered without one. */
  settled: Promise<{ held: true; progressToken: string | number } | { held: false; status: number; text: string }>;
  /** The whole answer, once the server ends it. */
  ended: Promise<{ status: number; text: string }>;
  abandon(): void;
}

/** A gated tools/call whose confirmation question the client never answers. */
function gatedCall(url: URL, session: Record<string, string>, id: number): GatedCall {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'b2_delete_bucket', arguments: { bucketId: `bucket-${id}` } },
  });
  const req = request({
    host: url.hostname,
    port: url.port,
    method: 'POST',
    path: '/mcp',
    headers: { ...JSON_HEADERS, ...session },
    agent: false,
  });
  let settle!: (value: Awaited<GatedCall['settled']>) => void;
  const settled = new Promise<Awaited<GatedCall['settled']>>((resolve) => (settle = resolve));
  const ended = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const question = /^data: (.*"method":"elicitation\/create".*)$/m.exec(text);
        if (question) {
          const message = JSON.parse(question[1]!) as { id: string | number; params: { _meta?: { progressToken?: string | number } } };
          settle({ held: true, progressToken: message.params._meta?.progressToken ?? message.id });
        }
      });
      res.once('end', () => {
        settle({ held: false, status: res.statusCode ?? 0, text });
        resolve({ status: res.statusCode ?? 0, text });
      });
    });
    req.once('error', reject);
  });
  req.end(body);
  const call = { settled, ended, abandon: () => req.destroy() };
  open.push(call);
  return call;
}

describe('held confirmation questions over HTTP', () => {
  it('keys made up on one address hold at most that address’s share: another tenant is still served', async () => {
    server = await startHttpServer(serverEnv({ ...BASE_ENV, B2_MAX_SESSIONS: '12', B2_MAX_SESSIONS_PER_KEY: '4' }));
    const url = server.url;
    const sessions = [];
    for (const name of ['made-up-1', 'made-up-2', 'made-up-3'])
      sessions.push(await openSession(url, { ...key(name), ...ATTACKER_ADDRESS }));
    // Four unanswered questions per key, one after another, as an attacker would pile them up.
    const outcomes: string[] = [];
    for (const [index, session] of sessions.entries()) {
      for (let i = 0; i < 4; i++) {
        const outcome = await gatedCall(url, session, index * 10 + i).settled;
        outcomes.push(outcome.held ? 'held' : `refused ${outcome.status}`);
      }
    }
    expect(outcomes).toEqual([...Array(4).fill('held'), ...Array(8).fill('refused 429')]);
    const other = await postJson(url, modernMessage('tools/list'), { ...key('tenant'), 'x-forwarded-for': '203.0.113.5' });
    expect(other.status).toBe(200);
  });

  it('a question is dropped after B2_ELICITATION_TIMEOUT_MS although the client keeps sending progress about it', async () => {
    // Limits high enough that every progress notification gets through, as the worst case.
    server = await startHttpServer(
      serverEnv({ ...BASE_ENV, B2_ELICITATION_TIMEOUT_MS: '1000', B2_MCP_RATE_LIMIT_RPS: '100000', B2_MCP_RATE_LIMIT_BURST: '100000' }),
    );
    const url = server.url;
    const session = await openSession(url, key('patient'));
    const started = Date.now();
    const call = gatedCall(url, session, 1);
    const question = await call.settled;
    if (!question.held) throw new Error(`no question was asked: ${question.status} ${question.text}`);

    let ended = false;
    const answer = call.ended.finally(() => (ended = true));
    // Progress about the question, each sent as soon as the last was accepted, for as long as the call is held.
    const GIVE_UP_MS = 8_000;
    for (let progress = 1; !ended && Date.now() - started < GIVE_UP_MS; progress++) {
      const sent = await postJson(
        url,
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: question.progressToken, progress } },
        session,
      );
      expect(sent.status).toBe(202);
    }
    expect(ended, `the question was still held after ${GIVE_UP_MS} ms of progress notifications`).toBe(true);
    const { status, text } = await answer;
    // The call ends unapproved: its answer is a tool error, and nothing ran.
    const answered = text
      .match(/^data: .*$/gm)!
      .map((line) => JSON.parse(line.slice(6)) as { id?: number; result?: { isError?: boolean; content: Array<{ text: string }> } });
    const result = answered.find((message) => message.id === 1)?.result;
    expect([status, result?.isError, result?.content[0]?.text]).toEqual([200, true, expect.stringMatching(/timed out/i)]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    const health = (await rawRequest(url, { method: 'GET', path: '/health' })).json() as { inFlightRequests: number };
    expect(health.inFlightRequests).toBe(0);
  });
});
