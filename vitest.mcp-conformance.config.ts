import { defineConfig } from 'vitest/config';

/** `npm run test:mcp-conformance`: the official MCP conformance suite against `b2-mcp http` (not part of `npm test`). */
export default defineConfig({
  test: {
    include: ['tests/mcp-conformance/**/*.test.ts'],
    setupFiles: ['tests/support/clock-preload.mjs'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
