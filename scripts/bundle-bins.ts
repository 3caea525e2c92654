import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { PACKAGE_ROOT } from '../src/contract/package-root.js';

/**
 * Replaces `dist/bin/*.js` (as tsc wrote them) with bundles: each bin starts by reading a handful
 * of files instead of resolving hundreds of modules. Each bin is bundled on its own (so the server
 * a check spawns reads no chunk shaped by the checker); its lazy `import()`s become chunks under
 * `dist/bin/chunks/<bin>/`, so what a run does not use is still not loaded. The AWS SDK stays
 * external (loaded from node_modules on the first S3 call only).
 */
const outdir = join(PACKAGE_ROOT, 'dist', 'bin');
rmSync(join(outdir, 'chunks'), { recursive: true, force: true });
for (const bin of ['b2-mcp', 'b2-mcp-conform']) {
  await build({
    absWorkingDir: PACKAGE_ROOT,
    entryPoints: [`bin/${bin}.ts`],
    outdir,
    chunkNames: `chunks/${bin}/[name]-[hash]`,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    allowOverwrite: true,
    external: ['@aws-sdk/*', '@smithy/*'],
    // Bundled CommonJS dependencies call require() for Node built-ins.
    banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}
