#!/usr/bin/env node
import { main, reportCrashes } from '../src/conformance/cli.js';

reportCrashes(process.argv);
const code = await main(process.argv);
// Exit explicitly once both streams are flushed: idle HTTP keep-alive sockets must not hold a finished run open.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
