/** The B2 application-key capabilities our tools are mapped to. */
export const B2_CAPABILITIES = [
  'listKeys', 'writeKeys', 'deleteKeys',
  'listBuckets', 'readBuckets', 'writeBuckets', 'deleteBuckets',
  'listFiles', 'readFiles', 'shareFiles', 'writeFiles', 'deleteFiles',
  'readBucketEncryption', 'writeBucketEncryption',
  'readBucketRetentions', 'writeBucketRetentions',
  'readFileRetentions', 'writeFileRetentions',
  'readFileLegalHolds', 'writeFileLegalHolds',
  'bypassGovernance',
  'readBucketReplications', 'writeBucketReplications',
  'readBucketNotifications', 'writeBucketNotifications',
] as const;
export type B2Capability = (typeof B2_CAPABILITIES)[number];
