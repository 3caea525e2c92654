// A stdio MCP server on the official SDK whose tools/list answer is replaced by a hostile one,
// generated in this process so tests never ship big payloads:
//
//   node hostile-stdio.mjs big <megabytes>     one tools/list frame of about that size
//   node hostile-stdio.mjs endless             a tools/list frame that never ends (no newline)
//   node hostile-stdio.mjs many <tools>        that many tiny tools in one tools/list answer
//   node hostile-stdio.mjs deep <levels>       an input schema nested that many levels
//   node hostile-stdio.mjs wide <properties> [pattern]
//                                              an input schema with that many properties (strings with that pattern)
//   node hostile-stdio.mjs dense <tools> <properties>
//                                              that many tools, each with that many properties of pattern ^(a+)+$
//   node hostile-stdio.mjs loop                $ref cycles (through $defs, and to the root)
//   node hostile-stdio.mjs redos               catastrophic-backtracking patterns
//   node hostile-stdio.mjs proto               properties named after Object.prototype members
//   node hostile-stdio.mjs missing-module      fails like a Node program whose import is missing
//   node hostile-stdio.mjs control-stderr      fails with terminal control sequences in its error
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const [mode, size, option] = process.argv.slice(2);
const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

if (mode === 'missing-module') {
  // What Node prints when an import is missing: the error first, its own version banner last.
  process.stderr.write(
    [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      '  ^',
      '',
      "Error: Cannot find module '/srv/mcp/dist/server.js'",
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
      '    at Module._load (node:internal/modules/cjs/loader:1051:27)',
      '    at node:internal/main/run_main_module:28:49 {',
      "  code: 'MODULE_NOT_FOUND',",
      '  requireStack: []',
      '}',
      '',
      'Node.js v22.11.0',
      '',
    ].join('\n'),
  );
  process.exit(1);
}

if (mode === 'control-stderr') {
  process.stderr.write('Error: bad config \x1b[2J\x1b]0;owned\x07\u202e done\n');
  process.exit(1);
}

const tool = (name, inputSchema, description = `List the ${name.split('_').slice(2).join(' ') || 'items'} of a B2 account.`) => ({
  name,
  description,
  inputSchema: { $schema: SCHEMA, type: 'object', ...inputSchema },
  annotations: { ...READ },
});

function nested(levels) {
  let schema = { type: 'string' };
  for (let level = 0; level < levels; level++) schema = { type: 'object', properties: { child: schema } };
  return schema;
}

function toolsFor(mode) {
  switch (mode) {
    case 'big': {
      const target = Number(size) * 1024 * 1024;
      const filler = 'Lists objects in a bucket page by page. '.repeat(96);
      const tools = [];
      for (let bytes = 0, index = 0; bytes < target; index++) {
        const entry = tool(
          `b2_list_padding_${String(index).padStart(6, '0')}`,
          { properties: { bucketId: { type: 'string', description: filler } } },
          filler,
        );
        bytes += JSON.stringify(entry).length + 1;
        tools.push(entry);
      }
      return tools;
    }
    case 'many':
      return Array.from({ length: Number(size) }, (_, index) => ({ name: `b2_list_many_${index}`, inputSchema: { type: 'object' } }));
    case 'deep':
      return [tool('b2_list_deep', { properties: { root: nested(Number(size)) } })];
    case 'wide': {
      const properties = {};
      for (let index = 0; index < Number(size); index++)
        properties[`p${index}`] = option === undefined ? { type: 'string' } : { type: 'string', pattern: option };
      return [tool('b2_list_wide', { properties })];
    }
    case 'dense': {
      const properties = {};
      for (let index = 0; index < Number(option); index++) properties[`p${index}`] = { type: 'string', pattern: '^(a+)+$' };
      return Array.from({ length: Number(size) }, (_, index) => tool(`b2_list_dense_${index}`, { properties }));
    }
    case 'loop':
      return [
        tool('b2_list_loop', {
          $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
          properties: { first: { $ref: '#/$defs/a' }, again: { $ref: '#' } },
        }),
      ];
    case 'redos':
      return [
        tool('b2_list_redos', {
          properties: { name: { type: 'string', pattern: '^(a+)+$' }, path: { type: 'string', pattern: '^(([a-z])+.)+[A-Z]([a-z])+$' } },
          patternProperties: { '^(x+x+)+y$': { type: 'string' } },
        }),
      ];
    case 'proto':
      return [
        tool('b2_list_proto', {
          properties: JSON.parse(
            '{"__proto__":{"type":"string"},"constructor":{"type":"string"},"toString":{"type":"string"},"hasOwnProperty":{"type":"object","properties":{"__proto__":{"type":"number"}}}}',
          ),
          required: ['__proto__', 'constructor', 'toString'],
        }),
        tool('toString', { properties: {} }),
        tool('__proto__', { properties: {} }),
      ];
    default:
      return [];
  }
}

// The SDK writes one JSON text plus a newline per message: swap the tools of a tools/list result.
const write = process.stdout.write.bind(process.stdout);
let frameNeverEnds = false;

/**
 * Write a frame that never ends: keep sending bytes without a newline until the reader goes away.
 * Nothing else the SDK writes afterwards reaches stdout (stdout writes are asynchronous on a pipe,
 * so a later answer could otherwise end the line with a newline and make it a short, broken one).
 */
function endlessFrame(id) {
  frameNeverEnds = true;
  const chunk = 'x'.repeat(1024 * 1024);
  const more = () => {
    while (write(chunk));
    process.stdout.once('drain', more);
  };
  write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[{"name":"`);
  more();
}

process.stdout.write = (chunk, ...rest) => {
  if (frameNeverEnds) return true;
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  if (text.includes('"tools":[')) {
    const message = JSON.parse(text);
    if (Array.isArray(message.result?.tools)) {
      if (mode === 'endless') {
        endlessFrame(message.id);
        return true;
      }
      message.result.tools = toolsFor(mode);
      return write(`${JSON.stringify(message)}\n`, ...rest);
    }
  }
  return write(chunk, ...rest);
};
process.stdout.on('error', () => process.exit(0));

if (!['big', 'many', 'endless', 'deep', 'wide', 'dense', 'loop', 'redos', 'proto'].includes(mode)) {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
serveStdio(() => {
  const server = new McpServer({ name: 'hostile-test', version: '1.0.0' });
  server.registerTool('b2_list_placeholder', { description: 'Replaced in the tools/list answer.' }, async () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
  return server;
});
