import type { ProfileName } from '../contract/constants.js';
import type { B2Capability } from './b2/capabilities.js';

export interface Profile {
  description: string;
  /** The key capabilities the surface is derived from; null is the full-surface override. */
  capabilities: readonly B2Capability[] | null;
  /** Whether a distinct Partner (master) credential is present. */
  partner: boolean;
}

/** The named profiles are capability inputs: the surface is always derived, never listed. */
export const PROFILES: Record<ProfileName, Profile> = {
  full: {
    description: 'Every tool: the full-surface override with a Partner credential. The superset used for contract review and regression.',
    capabilities: null,
    partner: true,
  },
  default: {
    description:
      'A standard customer key with read, write and delete capabilities on buckets, files, keys and notifications, and no Partner credential.',
    capabilities: [
      'deleteBuckets',
      'deleteFiles',
      'deleteKeys',
      'listBuckets',
      'listFiles',
      'listKeys',
      'readBucketNotifications',
      'readFiles',
      'writeBucketNotifications',
      'writeBuckets',
      'writeFileLegalHolds',
      'writeFileRetentions',
      'writeFiles',
    ],
    partner: false,
  },
  'read-only': {
    description:
      'A list-and-read key: no writes, no deletes, and presigned URLs for download only. The durable-secret tools remain as unavailable stubs.',
    capabilities: ['listBuckets', 'listFiles', 'listKeys', 'readBucketNotifications', 'readFiles'],
    partner: false,
  },
};
