import { defineConfig } from 'vitest/config';

/** `npm run test:bundle`: the MCP Bundle built, validated, unpacked and started (not part of `npm test`). */
export default defineConfig({
  test: {
    include: ['tests/bundle/**/*.test.ts'],
    setupFiles: ['tests/support/clock-preload.mjs'],
    testTimeout: 60_000,
    hookTimeout: 240_000,
    pool: 'forks',
  },
});
