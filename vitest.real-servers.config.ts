import { defineConfig } from 'vitest/config';

/** `npm run test:real-servers`: published MCP servers from the npm registry, checked offline over stdio (not part of `npm test`). */
export default defineConfig({
  test: {
    include: ['tests/real-servers/**/*.test.ts'],
    setupFiles: ['tests/support/clock-preload.mjs'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
