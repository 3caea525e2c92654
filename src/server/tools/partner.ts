import type { B2Region } from '../b2/types.js';
import type { ToolDefinition, ToolHandler } from './definition.js';
import { integer, nullable, oneOf, string, type ToolArgs } from './schema.js';

const accountId = string({ minLength: 1 });
const email = string({ format: 'email', maxLength: 254 });
const region = nullable(oneOf(['us-east', 'us-west', 'ca-east', 'eu-central']));
const idempotencyKey = string({ minLength: 1, maxLength: 200, description: 'Repeat-safe id for this creation.' });

const DEFAULT_GROUP_COUNT = 100;
const DEFAULT_MEMBER_COUNT = 100;

/** Copies the optional arguments that were given. */
function given(args: ToolArgs, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (args[name] !== undefined) out[name] = args[name];
  return out;
}

const listGroups: ToolHandler = async (args, context) => {
  const request = {
    adminAccountId: args.adminAccountId as string,
    maxGroupCount: (args.maxGroupCount as number | undefined) ?? DEFAULT_GROUP_COUNT,
    ...given(args, ['groupName', 'startGroupId']),
  };
  return { structured: await context.partner().listGroups(request, { signal: context.signal }) };
};

const listGroupMembers: ToolHandler = async (args, context) => {
  const request = {
    adminAccountId: args.adminAccountId as string,
    groupId: args.groupId as string,
    maxMemberCount: (args.maxMemberCount as number | undefined) ?? DEFAULT_MEMBER_COUNT,
    ...given(args, ['startEmail']),
  };
  return { structured: await context.partner().listGroupMembers(request, { signal: context.signal }) };
};

const ejectGroupMember: ToolHandler = async (args, context) => {
  const request = { adminAccountId: args.adminAccountId as string, groupId: args.groupId as string, memberAccountId: args.memberAccountId as string, ...given(args, ['email']) };
  return { structured: await context.partner().ejectGroupMember(request, { signal: context.signal }) };
};

const createGroupMember: ToolHandler = async (args, context) => {
  const partner = context.partner();
  const adminAccountId = args.adminAccountId as string;
  const groupId = args.groupId as string;
  const request = { adminAccountId, groupId, memberEmail: args.memberEmail as string, ...(args.region != null && { region: args.region as B2Region }) };
  // The secret flow (ledger, idempotency, undo) loads on first use, not at start-up.
  const { createWithSecret } = await import('../secrets/create-secret.js');
  return createWithSecret(args, context, {
    tool: 'b2_create_group_member',
    describe: (created) => `group member account ${created.groupMember.accountId}`,
    create: () => partner.createGroupMember(request, { signal: context.signal }),
    // No signal: an undo must finish even when the caller has gone away.
    undo: {
      run: async (created) => void (await partner.ejectGroupMember({ adminAccountId, groupId, memberAccountId: created.groupMember.accountId })),
      done: 'ejected from the group',
    },
  });
};

/** Served in inline mode only (the registry's rule): B2 cannot undo a trial account. */
const reserveTrialAccount: ToolHandler = async (args, context) => {
  const partner = context.partner();
  const request = {
    email: args.email as string,
    term: args.term as number,
    storage: args.storage as number,
    ...(args.region != null && { region: args.region as B2Region }),
  };
  // The secret flow (ledger, idempotency, undo) loads on first use, not at start-up.
  const { createWithSecret } = await import('../secrets/create-secret.js');
  return createWithSecret(args, context, {
    tool: 'b2_reserve_trial_create_account',
    describe: (created) => `trial account ${created.accountId}`,
    create: () => partner.reserveTrialCreateAccount(request, { signal: context.signal }),
  });
};

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
    handler: listGroups,
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
    handler: listGroupMembers,
  },
  {
    name: 'b2_eject_group_member',
    title: 'Eject Partner group member',
    description: 'Remove a member account from a Partner group; the API cannot re-add it.',
    input: {
      properties: { adminAccountId: accountId, groupId: string({ minLength: 1 }), memberAccountId: accountId, email },
      required: ['adminAccountId', 'groupId', 'memberAccountId'],
    },
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'idempotent-write',
    gate: () => 'eject the member from the group for good',
    handler: ejectGroupMember,
  },
  {
    name: 'b2_create_group_member',
    title: 'Create Partner group member',
    description: 'Create a new B2 account inside a Partner group. Its application key is written to the server\'s secret sink and redacted from the result, or returned once when the operator chose inline secrets.',
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
    handler: createGroupMember,
  },
  {
    name: 'b2_reserve_trial_create_account',
    title: 'Reserve Partner trial account',
    description: 'Reserve a Partner trial account (term in days, storage in TB). Offered only when the operator chose inline secrets: the result carries the new account\'s application key once, so store it securely.',
    input: {
      properties: { email, region, term: integer(7, 30), storage: integer(1, 50), idempotencyKey },
      required: ['email', 'term', 'storage', 'idempotencyKey'],
    },
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'write',
    secretProducing: true,
    fileSinkRefusal: 'the file secret sink does not support trial accounts (B2 cannot undo one if the ledger write fails); only B2_SECRET_SINK=inline serves it',
    gate: () => 'create a real trial account and its durable key',
    handler: reserveTrialAccount,
  },
];
