#!/usr/bin/env node
import { crashReport, main } from '../src/conformance/cli.js';

const crash = (error: unknown) => {
  const { text, exitCode } = crashReport(error, process.argv);
  process.stderr.write(text, () => process.exit(exitCode));
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

const code = await main(process.argv);
// Exit explicitly once both streams are flushed: idle HTTP keep-alive sockets must not hold a finished run open.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
