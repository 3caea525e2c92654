import type { B2CreateKeyRequest } from '../b2/types.js';
import { B2_CAPABILITIES } from '../b2/capabilities.js';
import type { ToolDefinition, ToolHandler } from './definition.js';
import { checkKeyPolicy } from './key-policy.js';
import { array, integer, oneOf, string } from './schema.js';

const DEFAULT_KEY_COUNT = 100;

const listKeys: ToolHandler = async (args, context) => {
  const request = {
    maxKeyCount: (args.maxKeyCount as number | undefined) ?? DEFAULT_KEY_COUNT,
    ...(args.startApplicationKeyId !== undefined && { startApplicationKeyId: args.startApplicationKeyId as string }),
  };
  return { structured: await context.b2().listKeys(request, { signal: context.signal }) };
};

const createKey: ToolHandler = async (args, context) => {
  const request: B2CreateKeyRequest = {
    keyName: args.keyName as string,
    capabilities: args.capabilities as string[],
    ...(args.bucketIds !== undefined && { bucketIds: args.bucketIds as string[] }),
    ...(args.namePrefix !== undefined && { namePrefix: args.namePrefix as string }),
    ...(args.validDurationInSeconds !== undefined && { validDurationInSeconds: args.validDurationInSeconds as number }),
  };
  checkKeyPolicy(request, context.config.keyPolicy);
  const b2 = context.b2();
  // The secret flow (ledger, idempotency, undo) loads on first use, not at start-up.
  const { createWithSecret } = await import('../secrets/create-secret.js');
  return createWithSecret(args, context, {
    tool: 'b2_create_key',
    describe: (key) => `application key ${key.applicationKeyId}`,
    create: () => b2.createKey(request, { signal: context.signal }),
    // No signal: an undo must finish even when the caller has gone away.
    undo: { run: async (key) => void (await b2.deleteKey({ applicationKeyId: key.applicationKeyId })), done: 'deleted' },
  });
};

const deleteKey: ToolHandler = async (args, context) => ({
  structured: await context.b2().deleteKey({ applicationKeyId: args.applicationKeyId as string }, { signal: context.signal }),
});

export const keyTools: ToolDefinition[] = [
  {
    name: 'b2_list_keys',
    title: 'List application keys',
    description: 'List application keys (ids, names, capabilities, restrictions, expiry), never their secrets.',
    input: {
      properties: {
        maxKeyCount: integer(1, 1000, { default: 100 }),
        startApplicationKeyId: string(),
      },
    },
    backing: 'nativeB2Sdk',
    capabilities: ['listKeys'],
    effect: 'read',
    handler: listKeys,
  },
  {
    name: 'b2_create_key',
    title: 'Create application key',
    description: 'Create an application key. Its secret is written to the server\'s secret sink (an owner-only ledger file) and redacted from the result, or returned once when the operator chose inline secrets.',
    input: {
      properties: {
        keyName: string({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$' }),
        capabilities: array(oneOf(B2_CAPABILITIES), { minItems: 1, maxItems: B2_CAPABILITIES.length }),
        bucketIds: array(string({ minLength: 1 }), { maxItems: 100, description: 'Restrict to these buckets; omit for account-wide.' }),
        namePrefix: string(),
        validDurationInSeconds: integer(1, 86400000),
        idempotencyKey: string({ minLength: 1, maxLength: 200, description: 'Repeat-safe id for this creation.' }),
      },
      required: ['keyName', 'capabilities', 'idempotencyKey'],
    },
    backing: 'nativeB2Sdk',
    capabilities: ['writeKeys'],
    effect: 'write',
    secretProducing: true,
    gate: () => 'create a durable application key',
    handler: createKey,
  },
  {
    name: 'b2_delete_key',
    title: 'Delete application key',
    description: 'Permanently delete an application key; its users lose access.',
    input: { properties: { applicationKeyId: string({ minLength: 1 }) }, required: ['applicationKeyId'] },
    backing: 'nativeB2Sdk',
    capabilities: ['deleteKeys'],
    effect: 'idempotent-write',
    gate: () => 'permanently delete the application key',
    handler: deleteKey,
  },
];
