import { rmSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { PACKAGE_ROOT } from '../src/contract/package-root.js';

/**
 * Replaces `dist/bin/*.js` (as tsc wrote them) with bundles: each bin starts by reading a handful
 * of files instead of resolving hundreds of modules. Each bin is bundled on its own (so the server
 * a check spawns reads no chunk shaped by the checker); its lazy `import()`s become chunks under
 * `dist/bin/chunks/<bin>/`, so what a run does not use is still not loaded. The AWS SDK stays
 * external (loaded from node_modules on the first S3 call only).
 */
/**
 * Zod's namespace export carries every message locale (about half of Zod's code), and neither
 * bin sets one: each bundle keeps only the English messages Zod uses by default.
 */
const zodEnglishMessagesOnly: Plugin = {
  name: 'zod-english-messages-only',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${sep}zod${sep}v4${sep}`)
        ? { path: join(dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-locales' }
        : undefined,
    );
    plugin.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

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
    banner: {
      js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);",
    },
    plugins: [zodEnglishMessagesOnly],
    logLevel: 'warning',
  });
}
