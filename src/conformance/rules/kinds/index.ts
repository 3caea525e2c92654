import type { CheckKind } from '../types.js';
import { CHANGE_CHECK_KINDS } from './changes.js';
import { CLIENT_KINDS } from './clients.js';
import { CONTRACT_KINDS } from './contract.js';
import { KEY_KINDS } from './keys.js';
import { LINT_KINDS } from './lint.js';
import { NAME_KINDS } from './names.js';
import { POISONING_KINDS } from './poisoning.js';
import { PROBE_KINDS } from './probes.js';
import { PROTOCOL_KINDS } from './protocol.js';
import { SCENARIO_KINDS } from './scenarios.js';
import { SCHEMA_KINDS } from './schema.js';
import { SUPPRESSION_KINDS } from './suppressions.js';
import { TOOL_SHAPE_KINDS } from './tool-shape.js';
import { VISIBLE_KINDS } from './visible.js';

/** Every check kind a rule in rules/*.json may name. */
export const CHECK_KINDS: Readonly<Record<string, CheckKind>> = {
  ...NAME_KINDS,
  ...KEY_KINDS,
  ...SCHEMA_KINDS,
  ...TOOL_SHAPE_KINDS,
  ...CONTRACT_KINDS,
  ...PROTOCOL_KINDS,
  ...CLIENT_KINDS,
  ...CHANGE_CHECK_KINDS,
  ...SUPPRESSION_KINDS,
  ...PROBE_KINDS,
  ...VISIBLE_KINDS,
  ...POISONING_KINDS,
  ...SCENARIO_KINDS,
  ...LINT_KINDS,
};
