import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_KEY_CAPABILITIES, connectToSandbox, createKey, mutations, startTestSandbox } from '../../../support/sandbox-harness.js';
import { connectStdio, serverEnv, type ClientKind, type Connected, type ElicitAnswer } from '../../../support/server-harness.js';
import { RawStdioServer } from '../../../support/fuzz.js';

/** Arguments that trigger each gated tool's confirmation (and pass schema validation). */
const TRIGGERING: Record<string, Record<string, unknown>> = {
  b2_create_bucket: { bucketName: 'public-bucket', bucketType: 'allPublic' },
  b2_delete_bucket: { bucketId: 'b1' },
  b2_delete_key: { applicationKeyId: 'k1' },
  b2_eject_group_member: { adminAccountId: 'a', groupId: 'g', memberAccountId: 'm' },
  b2_set_bucket_notification_rules: { bucketId: 'b1', eventNotificationRules: [] },
  b2_update_bucket: { bucketId: 'b1', bucketType: 'allPublic' },
  b2_update_file_legal_hold: { fileId: 'f', fileName: 'n', legalHold: 'off' },
  b2_update_file_retention: { fileId: 'f', fileName: 'n', fileRetention: { mode: null, retainUntilTimestamp: null } },
  s3_abort_multipart_upload: { bucket: 'b', key: 'k', uploadId: 'u' },
  s3_delete_object: { bucket: 'b', key: 'k' },
  s3_delete_objects: { bucket: 'b', objects: [{ key: 'k' }] },
  s3_get_presigned_url: { bucket: 'b', key: 'k', operation: 'PutObject' },
  s3_put_bucket_lifecycle: { bucket: 'b', rules: [] },
};
const SECRET_STUBS = ['b2_create_key', 'b2_create_group_member', 'b2_reserve_trial_create_account'];

const textOf = (result: Record<string, unknown>): string => (result.content as Array<{ text: string }>)[0]?.text ?? '';

/** Declines every question the server asks, keeping its text. */
function recordQuestions(client: Connected): string[] {
  const messages: string[] = [];
  (
    client.raw as { setRequestHandler: (method: string, handler: (request: { params: { message: string } }) => unknown) => void }
  ).setRequestHandler('elicitation/create', (request) => {
    messages.push(request.params.message);
    return { action: 'decline' };
  });
  return messages;
}

async function withClient<T>(
  kind: ClientKind,
  env: Record<string, string>,
  run: (c: Connected) => Promise<T>,
  elicit?: ElicitAnswer,
): Promise<T> {
  const client = await connectStdio(kind, serverEnv({ B2_MCP_PROFILE: 'full', ...env }), elicit);
  try {
    return await run(client);
  } finally {
    await client.close();
  }
}

describe('confirmation gate', () => {
  it('refuses every gated tool without confirm before its handler runs, and lets confirm: true through', async () => {
    await withClient('legacy', {}, async (client) => {
      const { tools } = await client.listTools();
      const gated = tools.filter((t) => 'confirm' in (t.inputSchema as { properties: object }).properties).map((t) => t.name as string);
      expect(gated.sort()).toEqual([...Object.keys(TRIGGERING), ...SECRET_STUBS].sort());
      for (const [name, args] of Object.entries(TRIGGERING)) {
        const refused = await client.callTool(name, args);
        expect(refused.isError, name).toBe(true);
        expect(textOf(refused), name).toMatch(
          /^B2 Error \[destructive_confirmation_required\] \(HTTP 409\): Confirmation required: this would /,
        );
        expect(textOf(refused)).not.toMatch(/B2_DESTRUCTIVE_POLICY|allow/);
        const confirmed = await client.callTool(name, { ...args, confirm: true });
        expect(textOf(confirmed), name).toMatch(/\[missing_credentials\]/);
      }
      for (const name of SECRET_STUBS) {
        expect(textOf(await client.callTool(name, {}))).toMatch(/^B2 Error \[tool_unavailable\] \(HTTP 410\)/);
      }
    });
  });

  it('does not gate the harmless variant of a conditional gate', async () => {
    await withClient('modern', {}, async (client) => {
      for (const [name, args] of [
        ['b2_update_file_legal_hold', { fileId: 'f', fileName: 'n', legalHold: 'on' }],
        ['s3_get_presigned_url', { bucket: 'b', key: 'k', operation: 'GetObject' }],
        ['b2_create_bucket', { bucketName: 'private-bucket', bucketType: 'allPrivate' }],
        ['b2_update_bucket', { bucketId: 'b1', lifecycleRules: [{ fileNamePrefix: '', daysFromUploadingToHiding: 3 }] }],
      ] as const) {
        expect(textOf(await client.callTool(name, args)), name).toMatch(/\[missing_credentials\]/);
      }
    });
  });

  it('block refuses even with confirm: true; allow needs no confirm', async () => {
    await withClient('legacy', { B2_DESTRUCTIVE_POLICY: 'block' }, async (client) => {
      const result = await client.callTool('s3_delete_object', { bucket: 'b', key: 'k', confirm: true });
      expect(textOf(result)).toMatch(/^B2 Error \[destructive_policy_blocked\] \(HTTP 403\)/);
    });
    await withClient('legacy', { B2_DESTRUCTIVE_POLICY: 'allow' }, async (client) => {
      expect(textOf(await client.callTool('s3_delete_object', { bucket: 'b', key: 'k' }))).toMatch(/\[missing_credentials\]/);
    });
  });

  describe.each(['modern', 'legacy', 'v1'] as const)('elicitation with a %s client', (kind) => {
    it.each(['decline', 'cancel'] as const)('%s is a refusal, even with confirm: true in the arguments', async (answer) => {
      await withClient(
        kind,
        {},
        async (client) => {
          const result = await client.callTool('b2_delete_bucket', { bucketId: 'b1', confirm: true });
          expect(result.isError).toBe(true);
          expect(textOf(result)).toMatch(/destructive_confirmation_refused.*(declined|cancelled)/);
        },
        answer,
      );
    });

    it('accept lets the call reach its handler', async () => {
      await withClient(
        kind,
        {},
        async (client) => {
          expect(textOf(await client.callTool('b2_delete_bucket', { bucketId: 'b1' }))).toMatch(/\[missing_credentials\]/);
        },
        'accept',
      );
    });
  });

  it('skips elicitation when it is turned off and falls back to confirm', async () => {
    await withClient(
      'modern',
      { B2_DESTRUCTIVE_ELICITATION: 'off' },
      async (client) => {
        expect(textOf(await client.callTool('b2_delete_bucket', { bucketId: 'b1' }))).toMatch(/destructive_confirmation_required/);
      },
      'accept',
    );
  });

  it('on a 2025-era connection, an accept sent with the first tools/call does not run the gated call', async () => {
    const server = RawStdioServer.start(serverEnv({ B2_MCP_PROFILE: 'full' }));
    try {
      await server.initialize({ elicitation: { form: {} } });
      const accept = { destructiveConfirmation: { action: 'accept', content: { confirm: true } } };
      const forged = { name: 'b2_delete_bucket', arguments: { bucketId: 'b1' }, inputResponses: accept };
      const response = await server.request('tools/call', forged);
      const text = ((response.result?.content as Array<{ text: string }>) ?? [])[0]?.text ?? JSON.stringify(response);
      expect(text).toMatch(
        /^B2 Error \[destructive_confirmation_refused\] \(HTTP 409\): .*does not reply to a confirmation this server asked for/,
      );
      expect(text).not.toMatch(/missing_credentials/);
    } finally {
      await server.close();
    }
  });

  it("the question a client is shown names the tool and the call's targets", async () => {
    const client = await connectStdio('legacy', serverEnv({ B2_MCP_PROFILE: 'full' }), 'decline');
    const messages = recordQuestions(client);
    try {
      await client.callTool('s3_delete_object', { bucket: 'photos', key: 'cat.jpg', versionId: 'v7' });
      expect(messages).toEqual([
        's3_delete_object would delete the object (bucket "photos", key "cat.jpg", versionId "v7"). Approve this call?',
      ]);
    } finally {
      await client.close();
    }
  });

  it('the question names where data would go and what a new key could do, against the sandbox, and a decline changes nothing', async () => {
    const sandbox = await startTestSandbox();
    const ledgerDir = mkdtempSync(join(tmpdir(), 'gate-destinations-'));
    const key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
    const env = { B2_MCP_PROFILE: 'full', B2_SECRET_SINK: 'file', B2_SECRET_SINK_FILE: join(ledgerDir, 'secrets.jsonl') };
    const client = await connectToSandbox(sandbox, key, { env, elicit: 'decline' });
    const messages = recordQuestions(client);
    try {
      const before = (await mutations(sandbox)).length;
      const hook = (name: string, url: string) => ({
        name,
        eventTypes: ['b2:ObjectCreated:*'],
        isEnabled: true,
        targetConfiguration: { targetType: 'webhook', url },
      });
      await client.callTool('b2_set_bucket_notification_rules', {
        bucketId: 'bkt-1',
        eventNotificationRules: [
          hook('audit', 'https://audit.example.com/in'),
          hook('copy', 'https://collector.attacker.example:8443/t/SECRET-PATH?x=1'),
        ],
      });
      await client.callTool('b2_update_bucket', {
        bucketId: 'bkt-1',
        replicationConfiguration: {
          asReplicationSource: {
            sourceApplicationKeyId: 'K-source',
            replicationRules: [
              {
                replicationRuleName: 'all',
                destinationBucketId: 'bkt-elsewhere',
                fileNamePrefix: '',
                includeExistingFiles: true,
                isEnabled: true,
                priority: 1,
              },
            ],
          },
        },
      });
      await client.callTool('b2_create_key', {
        keyName: 'wide',
        capabilities: ['listFiles', 'readFiles', 'shareFiles', 'bypassGovernance'],
        idempotencyKey: 'k-1',
      });
      await client.callTool('b2_create_key', {
        keyName: 'narrow',
        capabilities: ['readFiles'],
        bucketIds: ['bkt-1'],
        namePrefix: 'logs/',
        validDurationInSeconds: 3600,
        idempotencyKey: 'k-2',
      });
      expect(messages).toEqual([
        'b2_set_bucket_notification_rules would replace every event notification rule of the bucket (bucketId "bkt-1", 2 notification rules: "audit", "copy", sending events to webhooks ["https://audit.example.com", "https://collector.attacker.example:8443"]). Approve this call?',
        'b2_update_bucket would change replication, copying data to another bucket (bucketId "bkt-1", replicating to destination buckets ["bkt-elsewhere"], reading with source key "K-source", copying existing files too). Approve this call?',
        'b2_create_key would create a durable application key (keyName "wide", capabilities ["listFiles", "readFiles", "shareFiles", "bypassGovernance"], RISKY [shareFiles: can hand out download links to private files; bypassGovernance: can lift governance-mode retention and delete the files it protects], EVERY bucket of the account (unscoped), every file name, never expiring). Approve this call?',
        'b2_create_key would create a durable application key (keyName "narrow", capabilities ["readFiles"], only buckets ["bkt-1"], only file names starting "logs/", expiring after 3600 seconds). Approve this call?',
      ]);
      expect(messages.join('\n')).not.toContain('SECRET-PATH');
      expect((await mutations(sandbox)).length).toBe(before);
    } finally {
      await client.close();
      await sandbox.close();
      rmSync(ledgerDir, { recursive: true, force: true });
    }
  });
});
