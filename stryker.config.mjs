// Mutation testing (npm run test:mutation); see docs/testing.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: {
    configFile: 'vitest.stryker.config.ts',
  },
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['json', 'html', 'clear-text', 'progress'],
  jsonReporter: {
    fileName: 'reports/mutation/mutation.json',
  },
  htmlReporter: {
    fileName: 'reports/mutation/mutation.html',
  },
  concurrency: 2,
  timeoutMS: 20000,
  // A static mutant (module-level tables such as the secret-name lists) reruns every test; they
  // are killed by the table tests and the planted bugs (npm run test:planted) instead.
  ignoreStatic: true,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  ignorePatterns: ['dist', 'reports', 'bench/results', '.stryker-tmp'],
  // Stryker rewrites the named tsconfig with the TypeScript JS API, which typescript@7 (the native
  // compiler) does not ship; our tsconfig has no extends or references to rewrite, so none is named.
  tsconfigFile: 'no-tsconfig-for-stryker.json',
  // The judgement and guard code that in-process tests reach; see docs/testing.md for the rest.
  mutate: [
    'src/server/policy/gate.ts',
    'src/server/policy/input-validator.ts',
    'src/server/policy/sanitize.ts',
    'src/server/policy/secret-sink.ts',
    'src/server/policy/serialize.ts',
    'src/server/policy/token-estimate.ts',
    'src/server/policy/toon.ts',
    'src/server/s3/local-files.ts',
    'src/server/s3/local-file-rules.ts',
    'src/server/tools/buckets.ts:71-92',
    'src/server/tools/files.ts:26-31',
    'src/server/tools/webhook-guard.ts',
    'src/server/transports/http-credentials.ts',
    'src/server/transports/host-guard.ts',
    'src/server/transports/body-limit.ts',
    'src/server/transports/rate-limit.ts',
    'src/server/transports/in-flight.ts',
    'src/conformance/diff/changes.ts',
    'src/conformance/diff/diff.ts',
    'src/conformance/diff/schema.ts',
    'src/conformance/rules/kinds/*.ts',
    // The probes' judgements and run state; runner, sessions, sandbox and targets start servers,
    // connect clients and seed over HTTP (docs/testing.md says what that leaves out and why).
    'src/conformance/probes/arguments.ts',
    'src/conformance/probes/attempt.ts',
    'src/conformance/probes/format.ts',
    'src/conformance/probes/gate.ts',
    'src/conformance/probes/results.ts',
    'src/conformance/probes/run-state.ts',
    'src/conformance/probes/secrets.ts',
    'src/conformance/probes/table.ts',
    'src/conformance/probes/writes.ts',
  ],
};
