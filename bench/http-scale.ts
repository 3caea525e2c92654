import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { REDIS_SERVER, startRedis } from '../scripts/redis-server.js';
import {
  CONCURRENCY,
  listTools,
  MEASURED,
  percentile,
  round,
  run,
  startServer,
  stopServer,
  WARM_UP,
  type BenchServer,
} from './http-throughput.js';

/** Sequential requests per side when comparing Redis on and off (after the warm-up). */
const LATENCY_PAIRS = 400;

interface Throughput {
  instances: number;
  /** Requests the proxy had to send twice (see roundRobinProxy). */
  proxyRetries: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * A loopback proxy handing each request to the next upstream in turn (keep-alive to every
 * upstream). A request whose upstream connection fails before any answer (a kept-alive socket the
 * server had just closed) is sent once more, to the next upstream; `retried` counts those.
 */
async function roundRobinProxy(upstreams: readonly URL[]): Promise<{ url: string; server: Server; agent: Agent; retried(): number }> {
  const agent = new Agent({ keepAlive: true });
  let next = 0;
  let retried = 0;
  const send = (incoming: IncomingMessage, body: Buffer, outgoing: ServerResponse, attempt: number): void => {
    const target = upstreams[next++ % upstreams.length]!;
    const headers = { ...incoming.headers, host: target.host };
    const forwarded = request(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers, agent },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.once('error', (error) => {
      if (outgoing.headersSent || attempt > 0) return void outgoing.destroy(error);
      retried += 1;
      send(incoming, body, outgoing, attempt + 1);
    });
    forwarded.end(body);
  };
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.once('end', () => send(incoming, Buffer.concat(chunks), outgoing, 0));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server, agent, retried: () => retried };
}

async function throughputBehindProxy(servers: readonly BenchServer[]): Promise<Throughput> {
  const proxy = await roundRobinProxy(servers.map((server) => new URL(server.url)));
  try {
    await run(proxy.url, WARM_UP);
    const started = performance.now();
    const latencies = await run(proxy.url, MEASURED);
    const elapsedMs = performance.now() - started;
    const sorted = latencies.sort((a, b) => a - b);
    return {
      instances: servers.length,
      proxyRetries: proxy.retried(),
      rps: Math.round((latencies.length / elapsedMs) * 1000),
      p50Ms: round(percentile(sorted, 50)),
      p99Ms: round(percentile(sorted, 99)),
    };
  } finally {
    proxy.agent.destroy();
    await new Promise<void>((resolve) => proxy.server.close(() => resolve()));
  }
}

/** One instance with Redis-shared limits and one without, requests alternating between them one at a time. */
async function redisLatency(): Promise<Record<string, unknown>> {
  if (!REDIS_SERVER) return { skipped: 'redis-server is not installed' };
  const redis = await startRedis();
  const [off, on] = await Promise.all([startServer(), startServer({ B2_MCP_REDIS_URL: redis.url })]);
  try {
    for (let i = 0; i < WARM_UP; i += 1) await Promise.all([listTools(off.url), listTools(on.url)]);
    const offMs: number[] = [];
    const onMs: number[] = [];
    for (let i = 0; i < LATENCY_PAIRS; i += 1) {
      // Alternate which side goes first, so neither always runs on a warmer machine.
      if (i % 2 === 0) {
        offMs.push(await listTools(off.url));
        onMs.push(await listTools(on.url));
      } else {
        onMs.push(await listTools(on.url));
        offMs.push(await listTools(off.url));
      }
    }
    const [offSorted, onSorted] = [offMs.sort((a, b) => a - b), onMs.sort((a, b) => a - b)];
    const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;
    return {
      pairs: LATENCY_PAIRS,
      offP50Ms: round(percentile(offSorted, 50)),
      onP50Ms: round(percentile(onSorted, 50)),
      addedP50Ms: round(percentile(onSorted, 50) - percentile(offSorted, 50)),
      offP90Ms: round(percentile(offSorted, 90)),
      onP90Ms: round(percentile(onSorted, 90)),
      addedMeanMs: round(mean(onMs) - mean(offMs)),
    };
  } finally {
    await Promise.all([stopServer(off), stopServer(on)]);
    await redis.stop();
  }
}

/**
 * HTTP `tools/list` at concurrency 8 through a loopback round-robin proxy to 1 and to 3
 * `b2-mcp http` processes (the proxy and the load run in this process, on the same cores), and
 * the latency Redis-shared limits add to one request.
 */
export async function benchHttpScale(): Promise<Record<string, unknown>> {
  // Throughput on two shared cores moves with whatever else runs: the figure says how busy the machine was.
  const loadAverage = round(loadavg()[0]!);
  const servers = await Promise.all([startServer(), startServer(), startServer()]);
  let one: Throughput;
  let three: Throughput;
  try {
    one = await throughputBehindProxy(servers.slice(0, 1));
    three = await throughputBehindProxy(servers);
  } finally {
    await Promise.all(servers.map(stopServer));
  }
  return { concurrency: CONCURRENCY, requests: MEASURED, loadAverage, one, three, redis: await redisLatency() };
}
