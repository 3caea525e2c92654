import type { Era } from '../contract/constants.js';

/**
 * The three independent looks at one server: the 2.x client pinned to the modern era, the 2.x
 * client in the 2025 (legacy) era, and the 1.x SDK client as a second legacy witness.
 */
export const CONNECTIONS = ['modern', 'legacy', 'witness'] as const;
export type ConnectionId = (typeof CONNECTIONS)[number];

export const ERA_OF: Record<ConnectionId, Era> = { modern: 'modern', legacy: 'legacy', witness: 'legacy' };

export type EraChoice = 'modern' | 'legacy' | 'both';

export const CONNECTIONS_FOR: Record<EraChoice, ConnectionId[]> = {
  modern: ['modern'],
  legacy: ['legacy', 'witness'],
  both: ['modern', 'legacy', 'witness'],
};
