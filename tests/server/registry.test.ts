import { describe, expect, it } from 'vitest';
import { PROFILE_NAMES } from '../../src/contract/constants.js';
import { PROFILES } from '../../src/server/profiles.js';
import { profileSurface, resolveSurface } from '../../src/server/registry.js';
import { TOOL_CATALOG } from '../../src/server/tools/catalog.js';

/** The seed contract's post-rename tool list. */
const SEED_NAMES = [
  'b2_authorize_account',
  'b2_create_bucket',
  'b2_create_group_member',
  'b2_create_key',
  'b2_delete_bucket',
  'b2_delete_key',
  'b2_eject_group_member',
  'b2_get_bucket_notification_rules',
  'b2_list_buckets',
  'b2_list_group_members',
  'b2_list_groups',
  'b2_list_keys',
  'b2_list_largest_files',
  'b2_rank_egress_leaders',
  'b2_report_usage_growth',
  'b2_reserve_trial_create_account',
  'b2_set_bucket_notification_rules',
  'b2_unfinished_uploads',
  'b2_update_bucket',
  'b2_update_file_legal_hold',
  'b2_update_file_retention',
  's3_abort_multipart_upload',
  's3_complete_multipart_upload',
  's3_copy_object',
  's3_create_multipart_upload',
  's3_delete_object',
  's3_delete_objects',
  's3_get_bucket_location',
  's3_get_object',
  's3_get_presigned_upload_part_url',
  's3_get_presigned_url',
  's3_head_bucket',
  's3_head_object',
  's3_list_multipart_uploads',
  's3_list_object_versions',
  's3_list_objects_v2',
  's3_list_parts',
  's3_put_bucket_lifecycle',
  's3_put_object',
  's3_upload_part_copy',
];

const names = (profile: (typeof PROFILE_NAMES)[number]) => profileSurface(profile).map((t) => t.definition.name);

describe('tool registry', () => {
  it('holds exactly the seed names, sorted, with the contract backing counts', () => {
    expect(TOOL_CATALOG.map((t) => t.name)).toEqual(SEED_NAMES);
    const backing = (category: string) => TOOL_CATALOG.filter((t) => t.backing === category).length;
    expect([backing('nativeB2Sdk'), backing('awsS3Sdk'), backing('customMcp')]).toEqual([17, 19, 4]);
    for (const tool of TOOL_CATALOG) {
      expect(tool.name.startsWith('s3_')).toBe(tool.backing === 'awsS3Sdk');
    }
  });

  it('derives 40 / 37 / 20 tools for full / default / read-only', () => {
    expect(names('full')).toEqual(SEED_NAMES);
    expect(names('default')).toHaveLength(37);
    expect(SEED_NAMES.filter((n) => !names('default').includes(n))).toEqual([
      'b2_eject_group_member',
      'b2_list_group_members',
      'b2_list_groups',
    ]);
    expect(names('read-only')).toHaveLength(20);
    expect(names('read-only').filter((n) => n.startsWith('s3_'))).toHaveLength(9);
  });

  it('adds confirm to exactly the gated tools, optional and boolean', () => {
    for (const profile of PROFILE_NAMES) {
      for (const tool of profileSurface(profile)) {
        const properties = tool.inputSchema.properties as Record<string, { type?: string }>;
        expect('confirm' in properties, tool.definition.name).toBe(tool.definition.gate !== undefined);
        expect(tool.annotations.destructiveHint).toBe(tool.definition.gate !== undefined);
        if ('confirm' in properties) {
          expect(properties.confirm!.type).toBe('boolean');
          expect((tool.inputSchema.required as string[] | undefined) ?? []).not.toContain('confirm');
        }
      }
    }
    expect(profileSurface('full').filter((t) => t.definition.gate)).toHaveLength(16);
  });

  it('keeps annotations consistent with what a tool does', () => {
    for (const tool of profileSurface('full')) {
      const a = tool.annotations;
      expect(a.readOnlyHint && a.destructiveHint).toBe(false);
      expect(a.openWorldHint).toBe(true);
      const caps = tool.definition.capabilities;
      if (a.readOnlyHint && caps !== 'unmapped') {
        expect(
          caps.some((c) => c.startsWith('read') || c.startsWith('list')),
          tool.definition.name,
        ).toBe(true);
      }
    }
    const hints = Object.fromEntries(profileSurface('full').map((t) => [t.definition.name, t.annotations]));
    expect(hints.s3_get_object!.readOnlyHint).toBe(false);
    expect(hints.s3_delete_object!.idempotentHint).toBe(false);
    expect(hints.b2_delete_bucket!.idempotentHint).toBe(true);
  });

  it('narrows the presign tool to downloads for a read-only key', () => {
    const presign = profileSurface('read-only').find((t) => t.definition.name === 's3_get_presigned_url')!;
    const properties = presign.inputSchema.properties as Record<string, { enum?: string[] }>;
    expect(properties.operation!.enum).toEqual(['GetObject']);
    expect(properties).not.toHaveProperty('confirm');
    expect(properties).not.toHaveProperty('contentType');
    expect(presign.annotations.readOnlyHint).toBe(true);
    const uploadOnly = resolveSurface({ capabilities: new Set(['writeFiles']), partner: false, secretSink: 'off' });
    const upload = uploadOnly.find((t) => t.definition.name === 's3_get_presigned_url')!;
    expect((upload.inputSchema.properties as Record<string, { enum?: string[] }>).operation!.enum).toEqual(['PutObject']);
    expect(
      resolveSurface({ capabilities: new Set(['listBuckets']), partner: false, secretSink: 'off' }).map((t) => t.definition.name),
    ).not.toContain('s3_get_presigned_url');
  });

  it('serves secret-producing tools as stubs without a sink, and drops them in inline mode when filtered', () => {
    const empty = resolveSurface({ capabilities: new Set(), partner: false, secretSink: 'off' });
    expect(empty.map((t) => t.definition.name)).toEqual([
      'b2_authorize_account',
      'b2_create_group_member',
      'b2_create_key',
      'b2_reserve_trial_create_account',
    ]);
    expect(empty.filter((t) => t.stub)).toHaveLength(3);
    const inline = resolveSurface({ capabilities: new Set(), partner: false, secretSink: 'inline' });
    expect(inline.map((t) => t.definition.name)).toEqual(['b2_authorize_account']);
    const file = resolveSurface({ capabilities: new Set(PROFILES.default.capabilities ?? []), partner: false, secretSink: 'file' });
    const createKey = file.find((t) => t.definition.name === 'b2_create_key')!;
    expect(createKey.stub).toBe(true); // the default profile lacks writeKeys
  });
});
