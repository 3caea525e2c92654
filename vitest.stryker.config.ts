import { defineConfig } from 'vitest/config';

// Mutation testing sees only tests that run the code in this process: tests/e2e/** spawn
// dist/bin/*.js or other servers, which carry no mutants and no per-test coverage, and the
// real-component suites have configs of their own (docs/testing.md, "Where a test lives").
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    exclude: [
      '**/node_modules/**',
      'tests/e2e/**',
      ...['browser', 'bundle', 'mcp-conformance', 'package', 'real-servers', 'redis', 'runtimes', 's3-real'].map(
        (suite) => `tests/${suite}/**`,
      ),
      // In-process, but not run per mutant: they start the sandbox or the fetch handler on a port
      // (seconds each, for modules with no mutants or that the guard tables already cover)...
      'tests/sandbox/**',
      'tests/conformance/probes/probes-sandbox.test.ts',
      'tests/server/analytics/analytics-listings.test.ts',
      'tests/server/analytics/analytics-reports.test.ts',
      'tests/server/faults-races.test.ts',
      'tests/server/fetch-handler.test.ts',
      'tests/server/tool-errors.test.ts',
      // ...race a file swap on purpose (nondeterministic, see the local-files survivors below)...
      'tests/server/s3/s3-local-files.test.ts',
      // ...read the source tree, which Stryker's sandbox holds instrumented...
      'tests/test-layout.test.ts',
      'tests/conformance/architecture.test.ts',
      'tests/docs/contract.test.ts',
      'tests/scripts/contract/contract-drift.test.ts',
      // ...or judge reports, contracts and schemas of the checker, whose modules are not mutated.
      'tests/conformance/report/**',
      'tests/conformance/diff/contract-layout.test.ts',
      'tests/conformance/diff/diff-offline.test.ts',
      'tests/conformance/docs.test.ts',
      'tests/conformance/connect/json-schema-meta.test.ts',
      'tests/conformance/connect/target.test.ts',
    ],
    setupFiles: ['tests/support/clock-preload.mjs'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Mutants are switched at run time (static ones are ignored), so modules may stay loaded
    // between runs: re-importing the module graph for every mutant would cost most of the time.
    isolate: false,
  },
});
