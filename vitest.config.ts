import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Packs and installs the package (slow; `npm run test:package`, vitest.package.config.ts); published servers from npm (`npm run test:real-servers`).
    exclude: ['**/node_modules/**', 'tests/package/install.test.ts', 'tests/real-servers/**'],
    setupFiles: ['tests/support/clock-preload.mjs'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
