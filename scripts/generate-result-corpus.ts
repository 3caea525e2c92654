/**
 * Regenerates fixtures/result-corpus/: real `structuredContent` of every read tool, captured
 * through the official client from the built server against a seeded local sandbox. The seed and
 * id salt are fixed and the demo data is laid out from the start of the current UTC day, so ids,
 * names and sizes repeat exactly; timestamps of what the run itself creates and presigned URLs
 * (which carry their signing time) differ between runs. The clock stays real because S3 request
 * signatures must be within minutes of the sandbox's time.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CorpusEntry } from './result-corpus.js';
import { startSandbox } from '../src/sandbox/index.js';
import { packageRoot } from '../src/server/package-info.js';
import { B2_CAPABILITIES } from '../src/server/b2/capabilities.js';

const root = packageRoot();
const outDir = join(root, 'fixtures', 'result-corpus');
const sandbox = await startSandbox({ seed: 'demo', idSalt: 'result-corpus' });
const admin = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${sandbox.adminUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${sandbox.adminToken}` },
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`admin ${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<Record<string, unknown>>;
};
const key = (await admin('POST', '/keys', {
  keyName: 'corpus',
  capabilities: B2_CAPABILITIES,
  applicationKeyId: '0051corpuskey0000000000001',
  applicationKey: 'K005CorpusSecretValue0000000000',
})) as { applicationKeyId: string; applicationKey: string };

const client = new Client({ name: 'result-corpus', version: '1' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [join(root, 'dist', 'bin', 'b2-mcp.js'), 'stdio'],
    env: {
      PATH: process.env.PATH ?? '',
      B2_API_URL: sandbox.apiUrl,
      B2_APPLICATION_KEY_ID: key.applicationKeyId,
      B2_APPLICATION_KEY: key.applicationKey,
      B2_MASTER_KEY_ID: sandbox.applicationKeyId,
      B2_MASTER_KEY: sandbox.applicationKey,
      B2_SECRET_SINK: 'off',
      B2_DESTRUCTIVE_POLICY: 'allow',
      LOG_LEVEL: 'silent',
    },
  }),
);

async function call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name: tool, arguments: args })) as {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content: Array<{ text: string }>;
  };
  if (result.isError || !result.structuredContent) throw new Error(`${tool} ${JSON.stringify(args)}: ${result.content[0]?.text}`);
  return result.structuredContent;
}

// Set-up through the tools themselves: a 1,000-object bucket and one open multipart upload.
await call('b2_create_bucket', { bucketName: 'corpus-large-listing', bucketType: 'allPrivate' });
await admin('POST', '/bulk-versions', { bucketName: 'corpus-large-listing', count: 1000, namePrefix: 'logs/2026/app-', size: 4096 });
const upload = await call('s3_create_multipart_upload', { bucket: 'demo-private-assets', key: 'uploads/in-progress.bin' });
const buckets = (await call('b2_list_buckets', {})).buckets as Array<{ bucketId: string; bucketName: string }>;
const bucketId = (name: string) => buckets.find((b) => b.bucketName === name)!.bucketId;
const groups = await call('b2_list_groups', { adminAccountId: sandbox.accountId });
const groupId = String((groups.groups as Array<Record<string, unknown>>)[0]?.groupId);

type Spec = [id: string, tool: string, args: Record<string, unknown>, shape: CorpusEntry['shape']];
const SPECS: Spec[] = [
  ['account-info', 'b2_authorize_account', {}, 'nested'],
  ['buckets', 'b2_list_buckets', {}, 'mixed'],
  ['keys', 'b2_list_keys', {}, 'mixed'],
  ['notification-rules', 'b2_get_bucket_notification_rules', { bucketId: bucketId('demo-private-assets') }, 'mixed'],
  ['groups', 'b2_list_groups', { adminAccountId: sandbox.accountId }, 'nested'],
  ['group-members', 'b2_list_group_members', { adminAccountId: sandbox.accountId, groupId }, 'flat-table'],
  ['largest-files', 'b2_list_largest_files', { bucket: 'demo-private-assets', limit: 20 }, 'flat-table'],
  ['unfinished-uploads', 'b2_unfinished_uploads', { bucket: 'demo-private-assets' }, 'mixed'],
  ['egress-by-account', 'b2_rank_egress_leaders', {}, 'flat-table'],
  ['egress-by-bucket', 'b2_rank_egress_leaders', { by: 'bucket', days: 30 }, 'flat-table'],
  ['usage-growth', 'b2_report_usage_growth', {}, 'flat-table'],
  ['objects', 's3_list_objects_v2', { bucket: 'demo-private-assets' }, 'flat-table'],
  ['objects-by-folder', 's3_list_objects_v2', { bucket: 'demo-private-assets', delimiter: '/' }, 'mixed'],
  ['objects-in-prefix', 's3_list_objects_v2', { bucket: 'demo-private-assets', prefix: 'hostile/' }, 'flat-table'],
  ['object-versions', 's3_list_object_versions', { bucket: 'demo-private-assets' }, 'mixed'],
  ['head-object', 's3_head_object', { bucket: 'demo-private-assets', key: 'docs/readme.txt' }, 'nested'],
  ['bucket-location', 's3_get_bucket_location', { bucket: 'demo-private-assets' }, 'nested'],
  ['multipart-uploads', 's3_list_multipart_uploads', { bucket: 'demo-private-assets' }, 'flat-table'],
  ['parts', 's3_list_parts', { bucket: 'demo-private-assets', key: 'uploads/in-progress.bin', uploadId: upload.uploadId }, 'mixed'],
  ['presigned-get', 's3_get_presigned_url', { bucket: 'demo-private-assets', key: 'docs/readme.txt', operation: 'GetObject' }, 'nested'],
  [
    'presigned-parts',
    's3_get_presigned_upload_part_url',
    { bucket: 'demo-private-assets', key: 'uploads/in-progress.bin', uploadId: upload.uploadId, partNumbers: [1, 2, 3] },
    'mixed',
  ],
  ['object-text', 's3_get_object', { bucket: 'demo-private-assets', key: 'docs/readme.txt' }, 'nested'],
  ['objects-1000', 's3_list_objects_v2', { bucket: 'corpus-large-listing', maxKeys: 1000 }, 'flat-table'],
  ['versions-1000', 's3_list_object_versions', { bucket: 'corpus-large-listing', maxKeys: 1000 }, 'flat-table'],
  ['largest-files-100', 'b2_list_largest_files', { bucket: 'corpus-large-listing', limit: 100 }, 'flat-table'],
];

try {
  mkdirSync(outDir, { recursive: true });
  for (const file of readdirSync(outDir)) if (file.endsWith('.json')) rmSync(join(outDir, file));
  for (const [id, tool, args, shape] of SPECS) {
    const entry: CorpusEntry & { args: Record<string, unknown> } = { id, tool, shape, args, value: await call(tool, args) };
    writeFileSync(join(outDir, `${id}.json`), `${JSON.stringify(entry, null, 2)}\n`);
    process.stdout.write(`wrote fixtures/result-corpus/${id}.json\n`);
  }
} finally {
  await client.close();
  await sandbox.close();
}
