import { createHash, randomBytes } from 'node:crypto';
import { ALL_CAPABILITIES } from '../../sandbox/model.js';
import type { ProbeSandbox, SandboxKey } from './sandbox.js';

/** Values a seeded target exposes to argument templates, e.g. `{{target.bucketId}}` (sizes are numbers). */
export type TargetValues = Record<string, string | number>;

/** The size and SHA-1 of seeded content, so a probe can say what a copy of it must hold. */
function contentFacts(text: string): { size: number; sha1: string } {
  const bytes = Buffer.from(text, 'utf8');
  return { size: bytes.length, sha1: createHash('sha1').update(bytes).digest('hex') };
}

/** A target as the probe tables describe it: a kind and that kind's parameters. */
export interface TargetSpec {
  kind: string;
  [param: string]: unknown;
}

/** B2 Native API calls with a token, for seeding only (the server under test never sees this key). */
class NativeSeeder {
  private sessions = new Map<string, Promise<{ token: string }>>();

  constructor(
    private readonly sandbox: ProbeSandbox,
    private readonly seedingKey: Promise<SandboxKey>,
  ) {}

  private session(partner: boolean): Promise<{ token: string }> {
    const name = partner ? 'partner' : 'seeding';
    let session = this.sessions.get(name);
    if (!session) {
      session = (async () => {
        const key = partner ? this.sandbox.partnerKey : await this.seedingKey;
        if (!key) throw new Error('this target needs the Partner (master) credential, which only the full-surface profile has');
        const basic = Buffer.from(`${key.applicationKeyId}:${key.applicationKey}`).toString('base64');
        const response = await fetch(`${this.sandbox.apiUrl}/b2api/v4/b2_authorize_account`, {
          headers: { authorization: `Basic ${basic}` },
        });
        if (!response.ok) throw new Error(`seeding: b2_authorize_account answered ${response.status}`);
        return { token: ((await response.json()) as { authorizationToken: string }).authorizationToken };
      })();
      session.catch(() => this.sessions.delete(name));
      this.sessions.set(name, session);
    }
    return session;
  }

  /** `b2_upload_part`; returns the part's S3 ETag (its MD5). */
  async uploadPart(fileId: string, partNumber: number, data: Buffer): Promise<string> {
    const { uploadUrl, authorizationToken } = await this.call<{ uploadUrl: string; authorizationToken: string }>('b2_get_upload_part_url', {
      fileId,
    });
    const response = await fetch(uploadUrl, {
      method: 'POST',
      headers: {
        authorization: authorizationToken,
        'x-bz-part-number': String(partNumber),
        'x-bz-content-sha1': createHash('sha1').update(data).digest('hex'),
      },
      body: new Uint8Array(data),
    });
    if (!response.ok) throw new Error(`seeding: b2_upload_part answered ${response.status}`);
    return createHash('md5').update(data).digest('hex');
  }

  async call<T>(operation: string, body: Record<string, unknown>, options: { partner?: boolean } = {}): Promise<T> {
    const { token } = await this.session(options.partner ?? false);
    const response = await fetch(`${this.sandbox.apiUrl}/b2api/v4/${operation}`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`seeding: ${operation} answered ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  }
}

type Seed = (params: Record<string, unknown>) => Promise<TargetValues>;

/**
 * Creates the disposable things probes act on: every probe gets targets of its own, so a probe
 * only ever changes what it created. Bucket and object names carry a per-run tag.
 */
export class TargetSeeder {
  private readonly native: NativeSeeder;
  private readonly tag = randomBytes(3).toString('hex');
  private counter = 0;
  private shared = new Map<string, Promise<TargetValues>>();
  private readonly kinds: Record<string, Seed>;

  constructor(private readonly sandbox: ProbeSandbox) {
    const seedingKey = sandbox.admin<SandboxKey>('POST', '/keys', { keyName: 'backup-admin', capabilities: [...ALL_CAPABILITIES] });
    seedingKey.catch(() => {});
    this.native = new NativeSeeder(sandbox, seedingKey);
    this.kinds = {
      none: async () => ({}),
      'bucket-name': async () => ({ bucketName: this.name('bucket') }),
      bucket: (params) => this.bucket(params),
      object: async (params) => this.object(await this.sharedBucket('plain'), params),
      objects: (params) => this.objects(params),
      'locked-file': (params) => this.lockedFile(params),
      key: () => this.key(),
      'multipart-upload': (params) => this.multipartUpload(params),
      'notified-bucket': () => this.notifiedBucket(),
      group: async () => ({ groupId: (await this.firstGroup()).groupId }),
      'group-member': () => this.groupMember(),
    };
  }

  /** The kinds the probe tables may name (checked by their schema test). */
  get kindNames(): string[] {
    return Object.keys(this.kinds);
  }

  seed(spec: TargetSpec): Promise<TargetValues> {
    const seed = this.kinds[spec.kind];
    if (!seed) throw new Error(`unknown target kind "${spec.kind}"`);
    const { kind: _kind, ...params } = spec;
    return seed(params);
  }

  /** Names like an ordinary account's, so nothing a server lists tells it a checker made them. */
  private name(what: 'bucket' | 'object' | 'upload' | 'key' | 'member'): string {
    const n = `${this.tag}${++this.counter}`;
    return {
      bucket: `team-assets-${n}`,
      object: `notes/meeting-${n}`,
      upload: `uploads/video-${n}`,
      key: `ci-deploy-${n}`,
      member: `ops-${n}`,
    }[what];
  }

  private async bucket(params: Record<string, unknown>): Promise<TargetValues> {
    const created = await this.native.call<{ bucketId: string; bucketName: string }>('b2_create_bucket', {
      accountId: this.sandbox.accountId,
      bucketName: this.name('bucket'),
      bucketType: params.bucketType ?? 'allPrivate',
      ...(params.fileLockEnabled ? { fileLockEnabled: true } : {}),
    });
    return { bucketId: created.bucketId, bucketName: created.bucketName };
  }

  /** One plain and one Object Lock bucket per run hold the file-level targets. */
  private sharedBucket(kind: 'plain' | 'locked'): Promise<TargetValues> {
    let bucket = this.shared.get(kind);
    if (!bucket) {
      bucket = this.bucket(kind === 'locked' ? { fileLockEnabled: true } : {});
      this.shared.set(kind, bucket);
    }
    return bucket;
  }

  private async object(bucket: TargetValues, params: Record<string, unknown>): Promise<TargetValues> {
    const fileName = typeof params.name === 'string' ? params.name : `${this.name('object')}.txt`;
    const text = typeof params.text === 'string' ? params.text : `notes for ${fileName}\n`;
    const added = await this.sandbox.admin<{ fileId: string; fileName: string }>('POST', '/files', {
      bucketName: bucket.bucketName,
      fileName,
      text,
      contentType: 'text/plain',
    });
    return {
      bucketId: bucket.bucketId!,
      bucketName: bucket.bucketName!,
      key: added.fileName,
      fileId: added.fileId,
      fileName: added.fileName,
      ...contentFacts(text),
    };
  }

  /** A bucket of its own holding every named object; `key` is the first name. */
  private async objects(params: Record<string, unknown>): Promise<TargetValues> {
    const names = params.names as string[];
    const bucket = await this.bucket({});
    for (const name of names) await this.object(bucket, { name, text: `content of ${name}\n` });
    return { ...bucket, key: names[0]! };
  }

  private async lockedFile(params: Record<string, unknown>): Promise<TargetValues> {
    const file = await this.object(await this.sharedBucket('locked'), {});
    if (params.legalHold === 'on')
      await this.native.call('b2_update_file_legal_hold', { fileId: file.fileId, fileName: file.fileName, legalHold: 'on' });
    return file;
  }

  private async key(): Promise<TargetValues> {
    const key = await this.sandbox.admin<SandboxKey>('POST', '/keys', { keyName: this.name('key'), capabilities: ['listBuckets'] });
    return { applicationKeyId: key.applicationKeyId };
  }

  /** An unfinished upload; with `part`, part 1 is uploaded (its S3 ETag is `partEtag`); with `source`, an object to copy from sits beside it. */
  private async multipartUpload(params: Record<string, unknown>): Promise<TargetValues> {
    const bucket = await this.sharedBucket('plain');
    const fileName = typeof params.name === 'string' ? params.name : `${this.name('upload')}.bin`;
    const started = await this.native.call<{ fileId: string }>('b2_start_large_file', {
      bucketId: bucket.bucketId,
      fileName,
      contentType: 'application/octet-stream',
    });
    const values: TargetValues = { bucketId: bucket.bucketId!, bucketName: bucket.bucketName!, key: fileName, uploadId: started.fileId };
    if (params.part) {
      const part = `first part of ${fileName}\n`;
      values.partEtag = await this.native.uploadPart(started.fileId, 1, Buffer.from(part));
      const { size, sha1 } = contentFacts(part);
      Object.assign(values, { partSize: size, partSha1: sha1 });
    }
    if (params.source) {
      const source = await this.object(bucket, {});
      Object.assign(values, { sourceKey: source.key!, sourceSize: source.size!, sourceSha1: source.sha1! });
    }
    return values;
  }

  private async notifiedBucket(): Promise<TargetValues> {
    const bucket = await this.bucket({});
    await this.native.call('b2_set_bucket_notification_rules', {
      bucketId: bucket.bucketId,
      eventNotificationRules: [
        {
          name: 'new-uploads',
          eventTypes: ['b2:ObjectCreated:*'],
          isEnabled: true,
          objectNamePrefix: '',
          targetConfiguration: {
            targetType: 'webhook',
            url: 'https://hooks.example.com/storage-events',
            hmacSha256SigningSecret: randomBytes(16).toString('hex'),
          },
        },
      ],
    });
    return bucket;
  }

  private async firstGroup(): Promise<{ groupId: string }> {
    const { groups } = await this.native.call<{ groups: { groupId: string | number }[] }>(
      'b2_list_groups',
      { adminAccountId: this.sandbox.accountId },
      { partner: true },
    );
    if (!groups[0]) throw new Error('seeding: the sandbox account has no Partner group');
    return { groupId: String(groups[0].groupId) };
  }

  private async groupMember(): Promise<TargetValues> {
    const { groupId } = await this.firstGroup();
    const created = await this.native.call<{ groupMember?: { accountId?: string } }>(
      'b2_create_group_member',
      { adminAccountId: this.sandbox.accountId, groupId, memberEmail: `${this.name('member')}@example.com` },
      { partner: true },
    );
    const memberAccountId = created.groupMember?.accountId;
    if (!memberAccountId) throw new Error('seeding: b2_create_group_member returned no member account id');
    return { adminAccountId: this.sandbox.accountId, groupId, memberAccountId };
  }
}
