import { defineConfig } from 'vitest/config';

// Mutation testing sees only tests that run the code in this process: tests that spawn
// dist/bin/*.js exercise the built files, which carry no mutants and no per-test coverage.
export default defineConfig({
  test: {
    include: [
      'tests/unit/**/*.test.ts',
      // In-process checker tests that start no server (each runs in well under a second).
      'tests/conformance/diff.test.ts',
      'tests/conformance/probes-tables.test.ts',
      'tests/conformance/schema-kind.test.ts',
    ],
    setupFiles: ['tests/support/clock-preload.mjs'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Mutants are switched at run time (static ones are ignored), so modules may stay loaded
    // between runs: re-importing the module graph for every mutant would cost most of the time.
    isolate: false,
  },
});
