import { defineConfig } from 'vitest/config';

/** `npm run test:runtimes`: the fetch handler on workerd (miniflare), Bun and Deno (not part of `npm test`). */
export default defineConfig({
  test: {
    include: ['tests/runtimes/**/*.test.ts'],
    setupFiles: ['tests/support/clock-preload.mjs'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
