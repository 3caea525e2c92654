import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Packs and installs the package (slow; `npm run test:package`, vitest.package.config.ts); published servers from npm (`npm run test:real-servers`);
    // the official MCP conformance suite (`npm run test:mcp-conformance`), real runtimes (`npm run test:runtimes`) and the MCP Bundle (`npm run test:bundle`).
    exclude: [
      '**/node_modules/**',
      'tests/package/install.test.ts',
      'tests/real-servers/**',
      'tests/mcp-conformance/**',
      'tests/runtimes/**',
      'tests/bundle/**',
    ],
    setupFiles: ['tests/support/clock-preload.mjs'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
