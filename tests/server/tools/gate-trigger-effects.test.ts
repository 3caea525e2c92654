/**
 * The effect sentence each conditional gate trigger shows the human (contract §6.2 and
 * docs/deviations.md): which clause fired decides the words, so a clause that fires for the wrong
 * reason, or not at all, changes what the human is asked to approve.
 */
import { describe, expect, it } from 'vitest';
import { TOOL_CATALOG } from '../../../src/server/tools/catalog.js';
import type { ToolArgs } from '../../../src/server/tools/schema.js';

const effectOf = (tool: string, args: ToolArgs): string | undefined => {
  const gate = TOOL_CATALOG.find((d) => d.name === tool)?.gate;
  if (!gate) throw new Error(`${tool} has no gate`);
  return gate(args);
};

const UPDATE_BUCKET: Array<[args: ToolArgs, effect: string | undefined]> = [
  [{ bucketId: 'b', bucketType: 'allPublic' }, 'make every file in the bucket publicly downloadable'],
  [{ bucketId: 'b', fileLockEnabled: false }, 'turn Object Lock off'],
  [{ bucketId: 'b', defaultServerSideEncryption: { mode: 'none' } }, 'turn default encryption off'],
  [{ bucketId: 'b', defaultRetention: { mode: null, period: null } }, 'clear the default retention'],
  [
    { bucketId: 'b', defaultRetention: { mode: 'governance', period: { duration: 1, unit: 'days' } } },
    'replace the default retention, which may shorten or relax it',
  ],
  [{ bucketId: 'b', defaultRetention: {} }, 'replace the default retention, which may shorten or relax it'],
  [{ bucketId: 'b', lifecycleRules: [{ fileNamePrefix: '', daysFromHidingToDeleting: 1 }] }, 'schedule deletion of hidden file versions'],
  [
    { bucketId: 'b', lifecycleRules: [{ fileNamePrefix: 'a/' }, { fileNamePrefix: 'b/', daysFromHidingToDeleting: 0 }] },
    'schedule deletion of hidden file versions',
  ],
  [
    { bucketId: 'b', lifecycleRules: [{ fileNamePrefix: 'u/', daysFromStartingToCancelingUnfinishedLargeFiles: 1 }] },
    'schedule cancellation of unfinished large files, discarding their uploaded parts',
  ],
  [{ bucketId: 'b', replicationConfiguration: {} }, 'change replication, copying data to another bucket'],
  [{ bucketId: 'b', replicationConfiguration: null }, 'change replication, copying data to another bucket'],
  // Harmless twins: the same fields with values that remove no protection.
  [{ bucketId: 'b', fileLockEnabled: true }, undefined],
  [{ bucketId: 'b', defaultServerSideEncryption: { mode: 'SSE-B2' } }, undefined],
  [{ bucketId: 'b', defaultServerSideEncryption: {} }, undefined],
  [{ bucketId: 'b', defaultRetention: null }, undefined],
  [{ bucketId: 'b', lifecycleRules: [{ fileNamePrefix: '', daysFromUploadingToHiding: 1 }] }, undefined],
  [{ bucketId: 'b', lifecycleRules: [{ fileNamePrefix: '', daysFromHidingToDeleting: null }] }, undefined],
  [{ bucketId: 'b', lifecycleRules: [{ fileNamePrefix: '', daysFromStartingToCancelingUnfinishedLargeFiles: null }] }, undefined],
  [{ bucketId: 'b', lifecycleRules: { daysFromHidingToDeleting: 1 } }, undefined],
  [{ bucketId: 'b' }, undefined],
];

const FILE_RETENTION: Array<[args: ToolArgs, effect: string | undefined]> = [
  [{ fileId: 'f', fileName: 'n', fileRetention: { mode: null, retainUntilTimestamp: null } }, "remove the file's retention"],
  [
    { fileId: 'f', fileName: 'n', fileRetention: { mode: 'governance', retainUntilTimestamp: 1 }, bypassGovernance: true },
    'bypass governance-mode retention',
  ],
  [
    { fileId: 'f', fileName: 'n', fileRetention: { mode: null }, bypassGovernance: true },
    "remove the file's retention and bypass governance-mode retention",
  ],
  [{ fileId: 'f', fileName: 'n', fileRetention: { mode: 'compliance', retainUntilTimestamp: 1 } }, undefined],
  [{ fileId: 'f', fileName: 'n', fileRetention: {} }, undefined],
  [{ fileId: 'f', fileName: 'n', fileRetention: { mode: 'governance', retainUntilTimestamp: 1 }, bypassGovernance: 'true' }, undefined],
];

describe('b2_update_bucket names each weakening it would make', () => {
  it.each(UPDATE_BUCKET)('%j → %s', (args, effect) => {
    expect(effectOf('b2_update_bucket', args)).toBe(effect);
  });

  it('several weakenings are named in a fixed order, joined by "and"', () => {
    expect(
      effectOf('b2_update_bucket', {
        bucketId: 'b',
        replicationConfiguration: {},
        lifecycleRules: [{ daysFromHidingToDeleting: 1 }],
        defaultRetention: { mode: null },
        defaultServerSideEncryption: { mode: 'none' },
        fileLockEnabled: false,
        bucketType: 'allPublic',
      }),
    ).toBe(
      'make every file in the bucket publicly downloadable and turn Object Lock off and turn default encryption off and clear the default retention and schedule deletion of hidden file versions and change replication, copying data to another bucket',
    );
  });
});

const PUT_LIFECYCLE: Array<[args: ToolArgs, effect: string]> = [
  [{ bucket: 'b', rules: [] }, "remove the bucket's lifecycle configuration"],
  [
    { bucket: 'b', rules: [{ id: 'r', status: 'Enabled', expiration: { days: 1 } }] },
    'schedule objects or old versions for automatic deletion',
  ],
  [
    { bucket: 'b', rules: [{ id: 'r', status: 'Enabled', noncurrentVersionExpiration: { noncurrentDays: 1 } }] },
    'schedule objects or old versions for automatic deletion',
  ],
  [
    { bucket: 'b', rules: [{ id: 'r', status: 'Enabled', abortIncompleteMultipartUpload: { daysAfterInitiation: 1 } }] },
    'schedule cancellation of unfinished multipart uploads, discarding their uploaded parts',
  ],
  [
    {
      bucket: 'b',
      rules: [
        { id: 'e', status: 'Enabled', expiration: { days: 1 } },
        { id: 'a', status: 'Disabled', abortIncompleteMultipartUpload: { daysAfterInitiation: 1 } },
      ],
    },
    'schedule objects or old versions for automatic deletion and schedule cancellation of unfinished multipart uploads, discarding their uploaded parts',
  ],
  // S3 refuses a rule without an action; the replacement still asks, naming only what it does.
  [
    { bucket: 'b', rules: [{ id: 'r', status: 'Enabled', expiration: null, abortIncompleteMultipartUpload: null }] },
    "replace the bucket's lifecycle configuration",
  ],
];

describe('s3_put_bucket_lifecycle names what the new rules would delete or discard, and always asks', () => {
  it.each(PUT_LIFECYCLE)('%j → %s', (args, effect) => {
    expect(effectOf('s3_put_bucket_lifecycle', args)).toBe(effect);
  });
});

describe('b2_update_file_retention names removal and governance bypass', () => {
  it.each(FILE_RETENTION)('%j → %s', (args, effect) => {
    expect(effectOf('b2_update_file_retention', args)).toBe(effect);
  });
});
