// A one-tool stdio MCP server that appends, for every tools/list it answers, who asked: the
// client's name, version and capabilities (from `initialize` in the 2025 era, from the request
// envelope in the modern era) as one JSON line to the file named by RECORD_FILE.
//
//   RECORD_FILE=/tmp/who.jsonl node recording-server.mjs
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const file = process.env.RECORD_FILE;

serveStdio((ctx) => {
  const server = new Server({ name: 'recording-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async (_request, extra) => {
    const envelope = extra?.mcpReq?.envelope ?? {};
    const clientInfo = envelope['io.modelcontextprotocol/clientInfo'] ?? server.getClientVersion();
    const capabilities = envelope['io.modelcontextprotocol/clientCapabilities'] ?? server.getClientCapabilities();
    appendFileSync(file, `${JSON.stringify({ era: ctx.era, clientInfo, capabilities })}\n`);
    return {
      tools: [
        { name: 'b2_list_buckets', description: 'List the buckets of the account.', inputSchema: { type: 'object', properties: {} } },
      ],
    };
  });
  return server;
});
