import type { B2FileRetentionSetting } from '../b2/types.js';
import { requireCapability } from '../s3/rules.js';
import type { ToolDefinition, ToolHandler } from './definition.js';
import { boolean, integer, nullable, object, oneOf, string, type ToolArgs } from './schema.js';

const fileId = string({ minLength: 1 });
const fileName = string({ minLength: 1 });

function retentionEffects(args: ToolArgs): string | undefined {
  const effects: string[] = [];
  const retention = args.fileRetention as { mode?: unknown } | undefined;
  if (retention && retention.mode === null) effects.push('remove the file\'s retention');
  if (args.bypassGovernance === true) effects.push('bypass governance-mode retention');
  return effects.length > 0 ? effects.join(' and ') : undefined;
}

const updateLegalHold: ToolHandler = async (args, context) => ({
  structured: await context.b2().updateFileLegalHold(
    { fileId: args.fileId as string, fileName: args.fileName as string, legalHold: args.legalHold as 'on' | 'off' },
    { signal: context.signal },
  ),
});

const updateRetention: ToolHandler = async (args, context) => {
  const bypassGovernance = args.bypassGovernance === true;
  if (bypassGovernance) requireCapability(context.capabilities, 'bypassGovernance', 'bypassGovernance: true');
  const request = { fileId: args.fileId as string, fileName: args.fileName as string, fileRetention: args.fileRetention as B2FileRetentionSetting, bypassGovernance };
  return { structured: await context.b2().updateFileRetention(request, { signal: context.signal }) };
};

export const fileTools: ToolDefinition[] = [
  {
    name: 'b2_update_file_legal_hold',
    title: 'Update file legal hold',
    description: 'Turn a file version\'s legal hold on or off; off needs confirmation.',
    input: { properties: { fileId, fileName, legalHold: oneOf(['on', 'off']) }, required: ['fileId', 'fileName', 'legalHold'] },
    backing: 'nativeB2Sdk',
    capabilities: ['writeFileLegalHolds'],
    effect: 'idempotent-write',
    gate: (args) => (args.legalHold === 'off' ? 'release the legal hold so the file can be deleted' : undefined),
    handler: updateLegalHold,
  },
  {
    name: 'b2_update_file_retention',
    title: 'Update file retention',
    description: 'Set or clear a file version\'s Object Lock retention (null mode and retainUntilTimestamp clear); clearing or bypassing governance needs confirmation.',
    input: {
      properties: {
        fileId,
        fileName,
        fileRetention: object(
          {
            mode: nullable(oneOf(['governance', 'compliance'])),
            retainUntilTimestamp: nullable(integer(0, Number.MAX_SAFE_INTEGER, { description: 'Milliseconds since epoch.' })),
          },
          ['mode', 'retainUntilTimestamp'],
        ),
        bypassGovernance: boolean(),
      },
      required: ['fileId', 'fileName', 'fileRetention'],
    },
    backing: 'nativeB2Sdk',
    capabilities: ['writeFileRetentions'],
    effect: 'idempotent-write',
    gate: retentionEffects,
    handler: updateRetention,
  },
];
