/**
 * Bundles an entry point of the fetch handler into one ES module for a runtime that needs one file
 * (Cloudflare Workers: wrangler.jsonc runs this through `npm run build:worker`, and the runtime
 * tests start workerd, Bun and Deno on such bundles). Run as a script, it writes dist/worker/worker.js.
 *
 * Workers have the `nodejs_compat` modules but no package on disk: with `fixedVersion`, the
 * server's version is read from package.json now instead of from disk at run time.
 */
import { build, type Plugin } from 'esbuild';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot, packageVersion } from '../src/server/package-info.js';

/** src/server/package-info.ts, answered from package.json at bundle time. */
const fixedVersion: Plugin = {
  name: 'fixed-version',
  setup(bundle) {
    bundle.onResolve({ filter: /\/package-info\.js$/ }, () => ({ path: 'package-info', namespace: 'fixed-version' }));
    bundle.onLoad({ filter: /.*/, namespace: 'fixed-version' }, () => ({
      contents: `export const packageVersion = () => ${JSON.stringify(packageVersion())};\nexport const packageRoot = () => '/';\n`,
      loader: 'js',
    }));
  },
};

export async function bundleEntry(entry: string, outfile: string, options: { fixedVersion?: boolean } = {}): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    conditions: ['workerd', 'worker'],
    plugins: options.fixedVersion ? [fixedVersion] : [],
    logLevel: 'warning',
  });
}

/** The Worker wrangler.jsonc deploys. */
export const WORKER_BUNDLE = join(packageRoot(), 'dist', 'worker', 'worker.js');

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await bundleEntry(join(packageRoot(), 'deploy', 'worker.ts'), WORKER_BUNDLE, { fixedVersion: true });
}
