import { B2_CAPABILITIES, type ToolDefinition } from './definition.js';
import { pendingHandler } from './pending.js';
import { array, integer, oneOf, string } from './schema.js';

export const keyTools: ToolDefinition[] = [
  {
    name: 'b2_list_keys',
    title: 'List application keys',
    description: 'List application keys (ids, names, capabilities, restrictions, expiry). Key secrets are never returned.',
    input: {
      properties: {
        maxKeyCount: integer(1, 1000, { default: 100 }),
        startApplicationKeyId: string({ description: 'Continue from this key id.' }),
      },
    },
    backing: 'nativeB2Sdk',
    capabilities: ['listKeys'],
    effect: 'read',
    handler: pendingHandler('b2_list_keys'),
  },
  {
    name: 'b2_create_key',
    title: 'Create application key',
    description: 'Create an application key. The new secret goes to the configured secret sink, never into the result.',
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
    handler: pendingHandler('b2_create_key'),
  },
  {
    name: 'b2_delete_key',
    title: 'Delete application key',
    description: 'Permanently delete an application key; anything using it loses access.',
    input: { properties: { applicationKeyId: string({ minLength: 1 }) }, required: ['applicationKeyId'] },
    backing: 'nativeB2Sdk',
    capabilities: ['deleteKeys'],
    effect: 'idempotent-write',
    gate: () => 'permanently delete the application key',
    handler: pendingHandler('b2_delete_key'),
  },
];
