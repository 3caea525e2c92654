import type { B2CreateKeyRequest } from '../b2/types.js';
import { B2_CAPABILITIES } from '../b2/capabilities.js';
import { defineTool, type ToolDefinition, type ToolHandler } from './definition.js';
import { checkKeyPolicy } from './key-policy.js';
import { array, givenArgs, integer, oneOf, string, toolInput } from './schema.js';

const DEFAULT_KEY_COUNT = 100;

const listKeysInput = toolInput({
  maxKeyCount: integer(1, 1000, { default: 100 }),
  startApplicationKeyId: string(),
});

const listKeys: ToolHandler<typeof listKeysInput> = async (args, context) => {
  const request = { maxKeyCount: args.maxKeyCount ?? DEFAULT_KEY_COUNT, ...givenArgs(args, ['startApplicationKeyId']) };
  return { structured: await context.b2().listKeys(request, { signal: context.signal }) };
};

const createKeyInput = toolInput(
  {
    keyName: string({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$' }),
    capabilities: array(oneOf(B2_CAPABILITIES), { minItems: 1, maxItems: B2_CAPABILITIES.length }),
    bucketIds: array(string({ minLength: 1 }), { maxItems: 100, description: 'Restrict to these buckets; omit for account-wide.' }),
    namePrefix: string(),
    validDurationInSeconds: integer(1, 86400000),
    idempotencyKey: string({ minLength: 1, maxLength: 200, description: 'Repeat-safe id for this creation.' }),
  },
  ['keyName', 'capabilities', 'idempotencyKey'],
);

const createKey: ToolHandler<typeof createKeyInput> = async (args, context) => {
  const request: B2CreateKeyRequest = {
    keyName: args.keyName,
    capabilities: args.capabilities,
    ...givenArgs(args, ['bucketIds', 'namePrefix', 'validDurationInSeconds']),
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

const deleteKeyInput = toolInput({ applicationKeyId: string({ minLength: 1 }) }, ['applicationKeyId']);

const deleteKey: ToolHandler<typeof deleteKeyInput> = async (args, context) => ({
  structured: await context.b2().deleteKey({ applicationKeyId: args.applicationKeyId }, { signal: context.signal }),
});

export const keyTools: ToolDefinition[] = [
  defineTool({
    name: 'b2_list_keys',
    title: 'List application keys',
    description: 'List application keys (ids, names, capabilities, restrictions, expiry), never their secrets.',
    input: listKeysInput,
    backing: 'nativeB2Sdk',
    capabilities: ['listKeys'],
    effect: 'read',
    handler: listKeys,
  }),
  defineTool({
    name: 'b2_create_key',
    title: 'Create application key',
    description:
      "Create an application key. Its secret is written to the server's secret sink (an owner-only ledger file) and redacted from the result, or returned once when the operator chose inline secrets.",
    input: createKeyInput,
    backing: 'nativeB2Sdk',
    capabilities: ['writeKeys'],
    effect: 'write',
    secretProducing: true,
    gate: () => 'create a durable application key',
    handler: createKey,
  }),
  defineTool({
    name: 'b2_delete_key',
    title: 'Delete application key',
    description: 'Permanently delete an application key; its users lose access.',
    input: deleteKeyInput,
    backing: 'nativeB2Sdk',
    capabilities: ['deleteKeys'],
    effect: 'idempotent-write',
    gate: () => 'permanently delete the application key',
    handler: deleteKey,
  }),
];
