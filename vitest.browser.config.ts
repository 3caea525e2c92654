import { defineConfig } from 'vitest/config';

/** `npm run test:browser`: the HTML review page in headless Chromium (not part of `npm test`). */
export default defineConfig({
  test: {
    include: ['tests/browser/**/*.browser.ts'],
    setupFiles: ['tests/support/clock-preload.mjs'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
