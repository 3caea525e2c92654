import { defineTool, type ToolDefinition, type ToolHandler } from './definition.js';
import { givenArgs, integer, nullable, oneOf, string, toolInput } from './schema.js';

const accountId = string({ minLength: 1 });
const email = string({ format: 'email', maxLength: 254 });
const region = nullable(oneOf(['us-east', 'us-west', 'ca-east', 'eu-central']));
const idempotencyKey = string({ minLength: 1, maxLength: 200, description: 'Repeat-safe id for this creation.' });

const DEFAULT_GROUP_COUNT = 100;
const DEFAULT_MEMBER_COUNT = 100;

const listGroupsInput = toolInput(
  {
    adminAccountId: accountId,
    groupName: string(),
    maxGroupCount: integer(1, 100, { default: 100 }),
    startGroupId: integer(0, Number.MAX_SAFE_INTEGER),
  },
  ['adminAccountId'],
);

const listGroups: ToolHandler<typeof listGroupsInput> = async (args, context) => {
  const request = {
    adminAccountId: args.adminAccountId,
    maxGroupCount: args.maxGroupCount ?? DEFAULT_GROUP_COUNT,
    ...givenArgs(args, ['groupName', 'startGroupId']),
  };
  return { structured: await context.partner().listGroups(request, { signal: context.signal }) };
};

const listGroupMembersInput = toolInput(
  {
    adminAccountId: accountId,
    groupId: string({ minLength: 1 }),
    maxMemberCount: integer(1, 1000, { default: 100 }),
    startEmail: string(),
  },
  ['adminAccountId', 'groupId'],
);

const listGroupMembers: ToolHandler<typeof listGroupMembersInput> = async (args, context) => {
  const request = {
    adminAccountId: args.adminAccountId,
    groupId: args.groupId,
    maxMemberCount: args.maxMemberCount ?? DEFAULT_MEMBER_COUNT,
    ...givenArgs(args, ['startEmail']),
  };
  return { structured: await context.partner().listGroupMembers(request, { signal: context.signal }) };
};

const ejectGroupMemberInput = toolInput(
  { adminAccountId: accountId, groupId: string({ minLength: 1 }), memberAccountId: accountId, email },
  ['adminAccountId', 'groupId', 'memberAccountId'],
);

const ejectGroupMember: ToolHandler<typeof ejectGroupMemberInput> = async (args, context) => {
  const request = {
    adminAccountId: args.adminAccountId,
    groupId: args.groupId,
    memberAccountId: args.memberAccountId,
    ...givenArgs(args, ['email']),
  };
  return { structured: await context.partner().ejectGroupMember(request, { signal: context.signal }) };
};

const createGroupMemberInput = toolInput(
  { adminAccountId: accountId, groupId: string({ minLength: 1 }), memberEmail: email, region, idempotencyKey },
  ['adminAccountId', 'groupId', 'memberEmail', 'idempotencyKey'],
);

const createGroupMember: ToolHandler<typeof createGroupMemberInput> = async (args, context) => {
  const partner = context.partner();
  const { adminAccountId, groupId } = args;
  const request = { adminAccountId, groupId, memberEmail: args.memberEmail, ...(args.region != null && { region: args.region }) };
  // The secret flow (ledger, idempotency, undo) loads on first use, not at start-up.
  const { createWithSecret } = await import('../secrets/create-secret.js');
  return createWithSecret(args, context, {
    tool: 'b2_create_group_member',
    describe: (created) => `group member account ${created.groupMember.accountId}`,
    create: () => partner.createGroupMember(request, { signal: context.signal }),
    // No signal: an undo must finish even when the caller has gone away.
    undo: {
      run: async (created) =>
        void (await partner.ejectGroupMember({ adminAccountId, groupId, memberAccountId: created.groupMember.accountId })),
      done: 'ejected from the group',
    },
  });
};

const reserveTrialAccountInput = toolInput({ email, region, term: integer(7, 30), storage: integer(1, 50), idempotencyKey }, [
  'email',
  'term',
  'storage',
  'idempotencyKey',
]);

/** Served in inline mode only (the registry's rule): B2 cannot undo a trial account. */
const reserveTrialAccount: ToolHandler<typeof reserveTrialAccountInput> = async (args, context) => {
  const partner = context.partner();
  const request = {
    email: args.email,
    term: args.term,
    storage: args.storage,
    ...(args.region != null && { region: args.region }),
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
  defineTool({
    name: 'b2_list_groups',
    title: 'List Partner groups',
    description: 'List the Groups of a Partner admin account.',
    input: listGroupsInput,
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'read',
    handler: listGroups,
  }),
  defineTool({
    name: 'b2_list_group_members',
    title: 'List Partner group members',
    description: 'List the member accounts of a Partner group.',
    input: listGroupMembersInput,
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'read',
    handler: listGroupMembers,
  }),
  defineTool({
    name: 'b2_eject_group_member',
    title: 'Eject Partner group member',
    description: 'Remove a member account from a Partner group; the API cannot re-add it.',
    input: ejectGroupMemberInput,
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'idempotent-write',
    gate: () => 'eject the member from the group for good',
    handler: ejectGroupMember,
  }),
  defineTool({
    name: 'b2_create_group_member',
    title: 'Create Partner group member',
    description:
      "Create a new B2 account inside a Partner group. Its application key is written to the server's secret sink and redacted from the result, or returned once when the operator chose inline secrets.",
    input: createGroupMemberInput,
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'write',
    secretProducing: true,
    gate: () => 'create a real, non-deletable B2 account and its durable key',
    handler: createGroupMember,
  }),
  defineTool({
    name: 'b2_reserve_trial_create_account',
    title: 'Reserve Partner trial account',
    description:
      "Reserve a Partner trial account (term in days, storage in TB). Offered only when the operator chose inline secrets: the result carries the new account's application key once, so store it securely.",
    input: reserveTrialAccountInput,
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    partner: true,
    effect: 'write',
    secretProducing: true,
    fileSinkRefusal:
      'the file secret sink does not support trial accounts (B2 cannot undo one if the ledger write fails); only B2_SECRET_SINK=inline serves it',
    gate: () => 'create a real trial account and its durable key',
    handler: reserveTrialAccount,
  }),
];
