import { defineConfig } from 'vitest/config';

/** `npm run test:redis`: shared limits and sessions across instances through a real redis-server (not part of `npm test`). */
export default defineConfig({
  test: {
    include: ['tests/redis/**/*.redis.ts'],
    setupFiles: ['tests/support/clock-preload.mjs'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
