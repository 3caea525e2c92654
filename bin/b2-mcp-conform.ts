#!/usr/bin/env node
import { main } from '../src/conformance/cli.js';

const code = await main(process.argv);
// Exit explicitly once stdout is flushed: idle HTTP keep-alive sockets must not hold a finished run open.
process.stdout.write('', () => process.exit(code));
