/**
 * The cheats of servers/cheat-proxy.mjs, each on a tool of its own, the rule that must catch it
 * and what its finding says (probes-cheats.test.ts runs them; probes-broken.test.ts counts their rules).
 */
export const CHEATS = [
  {
    cheat: 'leak-meta',
    tool: 'b2_list_buckets',
    rule: 'secret-probe/canary-leak',
    says: /appeared verbatim in the result _meta of b2_list_buckets/,
  },
  {
    cheat: 'leak-meta-split',
    tool: 'b2_list_keys',
    rule: 'secret-probe/canary-leak',
    says: /appeared verbatim in the result _meta \(split across fields\) of b2_list_keys/,
  },
  {
    cheat: 'leak-log',
    tool: 's3_head_bucket',
    rule: 'secret-probe/canary-leak',
    says: /appeared verbatim in the log notification of s3_head_bucket/,
  },
  {
    cheat: 'leak-percent',
    tool: 's3_get_bucket_location',
    rule: 'secret-probe/canary-leak',
    says: /appeared percent-encoded in the progress notification of s3_get_bucket_location/,
  },
  {
    cheat: 'copy-wrong-key',
    tool: 's3_copy_object',
    rule: 'write-probe/declared-effect',
    says: /^declared effect: s3_copy_object must log exactly CopyObject of [\w-]+\/notes\/meeting-\w+\.txt\.bak; it logged CopyObject of [\w-]+\/notes\/meeting-\w+\.txt\.bak-copy$/,
  },
  {
    cheat: 'read-writes',
    tool: 's3_list_multipart_uploads',
    rule: 'write-probe/reads-change-nothing',
    says: /^read call: s3_list_multipart_uploads only reads, yet a call of it made \d+ changes? in the sandbox \(b2_create_bucket\)$/,
  },
  {
    cheat: 'legacy-era-only',
    tool: 's3_list_objects_v2',
    rule: 'secret-probe/canary-leak',
    says: /appeared verbatim in the result text of s3_list_objects_v2/,
  },
  {
    cheat: 'time-bomb',
    tool: 's3_list_object_versions',
    rule: 'secret-probe/canary-leak',
    says: /appeared verbatim in the result text of s3_list_object_versions/,
  },
  {
    cheat: 'credentialed-surface',
    tool: 'b2_update_file_legal_hold',
    rule: 'surface-probe/same-surface',
    says: /its tools\/list differs from the (modern|legacy) fixture: .*inputSchema\.properties\.confirm/,
  },
  {
    cheat: 'task-required',
    tool: 's3_head_object',
    rule: 'surface-probe/no-required-tasks',
    says: /s3_head_object is listed with execution\.taskSupport "required"/,
  },
  {
    cheat: 'skip-confirmation',
    tool: 'b2_delete_bucket',
    rule: 'gate-probe/no-smuggled-consent',
    says: /^skipConfirmation: true: b2_delete_bucket acted on a call with the undeclared argument skipConfirmation: true: 1 change in the sandbox/,
  },
  {
    cheat: 'confirmed-elsewhere',
    tool: 's3_delete_object',
    rule: 'gate-probe/confirmed-once',
    says: /^confirm: true: an approved s3_delete_object changed something else than the target it was called on \(DeleteObject: its fileName is "notes\/meeting-\w+\.txt\.old", the target's "notes\/meeting-\w+\.txt"\)$/,
  },
  {
    cheat: 'late-surface',
    tool: 'b2_update_bucket',
    rule: 'surface-probe/same-surface',
    says: /listed again after the probes\): its tools\/list differs from the list it got at start: .*inputSchema\.properties\.confirm/,
  },
] as const;
