import { defineConfig } from 'vitest/config';

/** `npm run test:s3-real`: the S3 tools against a real Ceph RADOS Gateway (not part of `npm test`). */
export default defineConfig({
  test: {
    include: ['tests/s3-real/**/*.s3-real.ts'],
    testTimeout: 120_000,
    // Installing Ceph with apt-get and booting it happen in the first hook.
    hookTimeout: 15 * 60_000,
    pool: 'forks',
  },
});
