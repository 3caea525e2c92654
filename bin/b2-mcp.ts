#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../src/server/config.js';
import { defaultTransport, runHttp, runStdio, UsageError } from '../src/server/cli.js';
import { packageVersion } from '../src/server/package-info.js';

const debug = process.argv.includes('--debug');
// The AWS SDK prints a multi-line Node-version notice to stderr on first use; stderr carries our
// JSON log lines, so keep it quiet unless the operator asked for it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

function fail(error: unknown): never {
  if (error instanceof UsageError) {
    process.stderr.write(`b2-mcp: ${error.message}\nRun "b2-mcp --help" for usage.\n`);
    process.exit(2);
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`b2-mcp: ${error instanceof ConfigError ? 'configuration error: ' : ''}${message}\n`);
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exit(1);
}

const program = new Command('b2-mcp')
  .description('MCP server for Backblaze B2 (stdio by default; configuration comes from B2_* environment variables).')
  .version(packageVersion())
  .option('--debug', 'print stack traces on failure')
  .exitOverride()
  .configureOutput({ writeErr: (text) => process.stderr.write(text) })
  .argument('[command]')
  .action((command?: string) => {
    if (command !== undefined) throw new UsageError(`unknown command "${command}" (expected stdio, http or sandbox)`);
    return defaultTransport(process.env) === 'http' ? runHttp(process.env, { host: '127.0.0.1' }) : runStdio(process.env);
  });

program
  .command('stdio')
  .description('serve MCP over stdin/stdout (both protocol eras)')
  .action(() => runStdio(process.env));

program
  .command('http')
  .description('serve MCP over Streamable HTTP at /mcp (both protocol eras)')
  .option('--port <port>', 'listen port (default: $PORT or 3000; 0 picks a free port)')
  .option('--host <host>', 'listen address', '127.0.0.1')
  .action((options: { port?: string; host: string }) => runHttp(process.env, options));

program
  .command('sandbox')
  .description('run a local B2 emulator (native and S3 APIs) and print its connection details as one JSON line')
  .option('--port <port>', 'listen port (0 picks a free port)', '0')
  .option('--host <host>', 'listen address', '127.0.0.1')
  .option('--seed <seed>', 'initial data: demo or none', 'demo')
  .option('--state <file>', 'load state from and save it to this JSON file')
  .option('--faults <spec>', 'inject failures, e.g. rate=0.2,kinds=500|503|429|reset|stall')
  .option(
    '--s3-upstream <url>',
    'hand out this S3-compatible server as s3ApiUrl instead of the sandbox S3 API (secret key in $B2_SANDBOX_S3_SECRET_ACCESS_KEY)',
  )
  .option('--s3-upstream-access-key-id <id>', "the upstream's access key id (default: $B2_SANDBOX_S3_ACCESS_KEY_ID)")
  .action(async (options: Record<string, string | undefined>) => {
    const { runSandboxCommand, SandboxUsageError } = await import('../src/sandbox/cli.js');
    try {
      await runSandboxCommand(options);
    } catch (error) {
      throw error instanceof SandboxUsageError ? new UsageError(error.message) : error;
    }
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) process.exit(0);
    process.stderr.write('Run "b2-mcp --help" for usage.\n');
    process.exit(2);
  }
  fail(error);
}
