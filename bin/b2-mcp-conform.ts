#!/usr/bin/env node
import { main } from '../src/conformance/cli.js';

const code = await main(process.argv);
// Exit explicitly: idle HTTP keep-alive sockets must not hold a finished check open.
process.exit(code);
