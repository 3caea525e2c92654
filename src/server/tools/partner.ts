import type { ToolDefinition } from './definition.js';
import { pendingHandler } from './pending.js';
import { integer, nullable, oneOf, string } from './schema.js';

const accountId = string({ minLength: 1 });
const email = string({ format: 'email', maxLength: 254 });
const region = nullable(oneOf(['us-east', 'us-west', 'ca-east', 'eu-central']));
const idempotencyKey = string({ minLength: 1, maxLength: 200, description: 'Repeat-safe id for this creation.' });

export const partnerTools: ToolDefinition[] = [
  {
    name: 'b2_list_groups',
    title: 'List Partner groups',
    description: 'List the Groups of a Partner admin account.',
    input: {
      properties: {
        adminAccountId: accountId,
        groupName: string(),
        maxGroupCount: integer(1, 100, { default: 100 }),
        startGroupId: integer(0, Number.MAX_SAFE_INTEGER),
      },
      required: ['adminAccountId'],
    },
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'read',
    handler: pendingHandler('b2_list_groups'),
  },
  {
    name: 'b2_list_group_members',
    title: 'List Partner group members',
    description: 'List the member accounts of a Partner group.',
    input: {
      properties: {
        adminAccountId: accountId,
        groupId: string({ minLength: 1 }),
        maxMemberCount: integer(1, 1000, { default: 100 }),
        startEmail: string(),
      },
      required: ['adminAccountId', 'groupId'],
    },
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'read',
    handler: pendingHandler('b2_list_group_members'),
  },
  {
    name: 'b2_eject_group_member',
    title: 'Eject Partner group member',
    description: 'Remove a member account from a Partner group. It cannot be re-added through the API.',
    input: {
      properties: { adminAccountId: accountId, groupId: string({ minLength: 1 }), memberAccountId: accountId, email },
      required: ['adminAccountId', 'groupId', 'memberAccountId'],
    },
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'idempotent-write',
    gate: () => 'eject the member from the group for good',
    handler: pendingHandler('b2_eject_group_member'),
  },
  {
    name: 'b2_create_group_member',
    title: 'Create Partner group member',
    description: 'Create a new B2 account inside a Partner group. Its key goes to the configured secret sink, never into the result.',
    input: {
      properties: { adminAccountId: accountId, groupId: string({ minLength: 1 }), memberEmail: email, region, idempotencyKey },
      required: ['adminAccountId', 'groupId', 'memberEmail', 'idempotencyKey'],
    },
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'write',
    secretProducing: true,
    gate: () => 'create a real, non-deletable B2 account and its durable key',
    handler: pendingHandler('b2_create_group_member'),
  },
  {
    name: 'b2_reserve_trial_create_account',
    title: 'Reserve Partner trial account',
    description: 'Reserve a Partner trial account (term in days, storage in TB). Its key goes to the configured secret sink, never into the result.',
    input: {
      properties: { email, region, term: integer(7, 30), storage: integer(1, 50), idempotencyKey },
      required: ['email', 'term', 'storage', 'idempotencyKey'],
    },
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'write',
    secretProducing: true,
    gate: () => 'create a real trial account and its durable key',
    handler: pendingHandler('b2_reserve_trial_create_account'),
  },
];
