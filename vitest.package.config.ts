import { defineConfig } from 'vitest/config';

/** `npm run test:package`: pack the package, install it into fresh projects, run it from there. */
export default defineConfig({
  test: {
    include: ['tests/package/install.test.ts'],
    setupFiles: ['tests/support/clock-preload.mjs'],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
