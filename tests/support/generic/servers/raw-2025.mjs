// A notes server that speaks only the 2025 protocol era, over raw newline-delimited JSON-RPC on
// stdio (no SDK): any `initialize` gets 2025-11-25 back (or the older 2025 version the client
// asked for), and `server/discover`, the modern era's entry point, is an unknown method.
//
//   node raw-2025.mjs <surface.json>     surface: { serverInfo?, tools: [...], textDiffers?: [tool names],
//                                         acceptsUndeclared?: [tool names], delayMs?: { tool: ms } }
//
// A call's structuredContent echoes the call; its text block is the same JSON, except for the
// tools in `textDiffers`.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const surface = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

function send(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

function answer(request) {
  const { method, params } = request;
  if (method === 'initialize') {
    const asked = params?.protocolVersion;
    return {
      protocolVersion: VERSIONS.includes(asked) ? asked : VERSIONS[0],
      capabilities: { tools: { listChanged: false } },
      serverInfo: surface.serverInfo ?? { name: 'raw-notes', version: '1.0.0' },
    };
  }
  if (method === 'ping') return {};
  if (method === 'tools/list') return { tools: surface.tools };
  if (method === 'tools/call') {
    const tool = surface.tools.find((candidate) => candidate.name === params?.name);
    if (!tool) return { content: [{ type: 'text', text: `unknown tool ${params?.name}` }], isError: true };
    // A closed schema refuses what it does not declare, unless the surface says this tool obeys anything.
    const declared = Object.keys(tool.inputSchema?.properties ?? {});
    const undeclared = Object.keys(params?.arguments ?? {}).filter((name) => !declared.includes(name));
    if (
      undeclared.length > 0 &&
      tool.inputSchema?.additionalProperties === false &&
      !(surface.acceptsUndeclared ?? []).includes(tool.name)
    ) {
      return { content: [{ type: 'text', text: `unknown argument ${undeclared[0]}` }], isError: true };
    }
    const structured = { tool: tool.name, arguments: params?.arguments ?? {} };
    const text = (surface.textDiffers ?? []).includes(tool.name) ? 'done' : JSON.stringify(structured);
    return { content: [{ type: 'text', text }], structuredContent: structured };
  }
  return undefined;
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    send({ id: null, error: { code: -32700, message: 'parse error' } });
    return;
  }
  if (request.id === undefined) return; // a notification
  const result = answer(request);
  const reply = () =>
    result === undefined
      ? send({ id: request.id, error: { code: -32601, message: `method not found: ${request.method}` } })
      : send({ id: request.id, result });
  // A tool the surface makes slow answers its calls late, so latency budgets can be missed for sure.
  const delay = request.method === 'tools/call' ? surface.delayMs?.[request.params?.name] : undefined;
  if (delay) setTimeout(reply, delay);
  else reply();
});
