import { LEGACY_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION, type Era } from '../../contract/constants.js';
import type { IdentityCapabilities, IdentityName } from './client-identities.js';

/** Every released protocol version before the modern era, newest first: a 2025-era connection accepts whichever of them the server chooses. */
export const LEGACY_PROTOCOL_VERSIONS = [LEGACY_PROTOCOL_VERSION, '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/**
 * The independent looks at one server. The first three are judged against the fixtures: the 2.x
 * client pinned to the modern era, the 2.x client in the 2025 (legacy) era, and the 1.x SDK
 * client as a second legacy witness. The others are only compared with the rest (a server may
 * refuse them): they list the tools at the older protocol versions, as other clients, and as a
 * client that declares only sampling or only elicitation (with the names and versions of other
 * looks, capability sets none, roots, sampling and elicitation are all presented).
 */
export const CONNECTIONS = [
  'modern',
  'legacy',
  'witness',
  'legacy-2025-06-18',
  'legacy-2025-03-26',
  'legacy-2024-11-05',
  'legacy-sampling',
  'legacy-elicitation',
] as const;
export type ConnectionId = (typeof CONNECTIONS)[number];

export interface ConnectionSpec {
  era: Era;
  /** Which SDK client speaks: the current 2.x one or the 1.x witness. */
  sdk: '2.x' | '1.x';
  /** The protocol version offered (modern: pinned through server/discover). */
  protocolVersion: string;
  /** The ordinary client this connection presents as (see client-identities.ts). */
  identity: IdentityName;
  /** Judged against the fixtures (true), or only compared with the other looks. */
  judged: boolean;
  /** Capabilities declared instead of the identity's own (the name and version stay the identity's). */
  capabilities?: IdentityCapabilities;
}

export const CONNECTION_SPECS: Readonly<Record<ConnectionId, ConnectionSpec>> = {
  modern: { era: 'modern', sdk: '2.x', protocolVersion: MODERN_PROTOCOL_VERSION, identity: 'vscode', judged: true },
  legacy: { era: 'legacy', sdk: '2.x', protocolVersion: LEGACY_PROTOCOL_VERSION, identity: 'cursor', judged: true },
  witness: { era: 'legacy', sdk: '1.x', protocolVersion: LEGACY_PROTOCOL_VERSION, identity: 'claudeCode', judged: true },
  'legacy-2025-06-18': { era: 'legacy', sdk: '2.x', protocolVersion: '2025-06-18', identity: 'claudeDesktop', judged: false },
  'legacy-2025-03-26': { era: 'legacy', sdk: '2.x', protocolVersion: '2025-03-26', identity: 'zed', judged: false },
  'legacy-2024-11-05': { era: 'legacy', sdk: '2.x', protocolVersion: '2024-11-05', identity: 'zed', judged: false },
  'legacy-sampling': {
    era: 'legacy',
    sdk: '2.x',
    protocolVersion: LEGACY_PROTOCOL_VERSION,
    identity: 'cursor',
    judged: false,
    capabilities: { sampling: {} },
  },
  'legacy-elicitation': {
    era: 'legacy',
    sdk: '2.x',
    protocolVersion: LEGACY_PROTOCOL_VERSION,
    identity: 'cursor',
    judged: false,
    capabilities: { elicitation: {} },
  },
};

/** The looks that are only compared with the judged ones (see CONNECTION_SPECS). */
export function isJudged(connection: ConnectionId): boolean {
  return CONNECTION_SPECS[connection].judged;
}

export const ERA_OF: Record<ConnectionId, Era> = Object.fromEntries(CONNECTIONS.map((id) => [id, CONNECTION_SPECS[id].era])) as Record<
  ConnectionId,
  Era
>;

export type EraChoice = 'modern' | 'legacy' | 'both';

export const CONNECTIONS_FOR: Record<EraChoice, ConnectionId[]> = {
  modern: ['modern'],
  legacy: CONNECTIONS.filter((connection) => CONNECTION_SPECS[connection].era === 'legacy'),
  both: [...CONNECTIONS],
};
