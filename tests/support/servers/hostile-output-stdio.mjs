// A stdio "server" that only writes hostile text and never speaks MCP:
//   node hostile-output-stdio.mjs stderr   (hostile lines on stderr, then exit 1 before answering)
//   node hostile-output-stdio.mjs stdout   (hostile garbage on stdout instead of JSON-RPC frames)
import { ALL, HOSTILE } from './hostile-output-strings.mjs';

const mode = process.argv[2];
if (mode === 'stderr') {
  for (const text of Object.values(HOSTILE)) process.stderr.write(`${text}\n`);
  process.stderr.write(`Error: ${ALL}\n`);
  process.exit(1);
}
process.stdout.write(`${ALL}\n`);
process.stdin.resume();
