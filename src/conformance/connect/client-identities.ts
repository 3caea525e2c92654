import { ConformError } from '../errors.js';

/**
 * Who the checker says it is. A server under audit must not be able to tell the checker from an
 * ordinary client, so every connection presents as a widely used MCP client: its `clientInfo` as
 * that client sends it, a capability set like the one it declares, and the User-Agent of the
 * Node.js fetch those (Node-based) clients send over HTTP. Nothing here names the checker.
 */
export interface ClientInfo {
  name: string;
  version: string;
}

/** The client capabilities the checker can honour without a human: roots, sampling and elicitation, all answered with "nothing"/"declined". */
export interface IdentityCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: Record<string, never>;
  elicitation?: { form?: Record<string, never>; url?: Record<string, never> };
}

export interface ClientIdentity {
  /** The product mimicked, for reports (not sent). */
  product: string;
  clientInfo: ClientInfo;
  capabilities: IdentityCapabilities;
  /** HTTP only. */
  userAgent: string;
}

/** What Node's built-in fetch sends when a client sets no User-Agent of its own (VS Code, Cursor and others do not). */
const NODE_FETCH_USER_AGENT = 'node';

/** The default identities, one capability set each (names, versions and User-Agents as these clients send them). */
export const CLIENT_IDENTITIES = {
  vscode: {
    product: 'Visual Studio Code',
    clientInfo: { name: 'Visual Studio Code', version: '1.107.1' },
    capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } },
    userAgent: NODE_FETCH_USER_AGENT,
  },
  cursor: {
    product: 'Cursor',
    clientInfo: { name: 'cursor-vscode', version: '1.0.0' },
    capabilities: { roots: {}, elicitation: {} },
    userAgent: NODE_FETCH_USER_AGENT,
  },
  claudeCode: {
    product: 'Claude Code',
    clientInfo: { name: 'claude-code', version: '2.1.76' },
    capabilities: { roots: {}, elicitation: { form: {} } },
    userAgent: 'claude-code/2.1.76 (cli)',
  },
  claudeDesktop: {
    product: 'Claude Desktop',
    clientInfo: { name: 'claude-ai', version: '0.1.0' },
    capabilities: { roots: {} },
    userAgent: NODE_FETCH_USER_AGENT,
  },
  zed: {
    product: 'Zed',
    clientInfo: { name: 'Zed', version: '0.214.4' },
    capabilities: {},
    userAgent: NODE_FETCH_USER_AGENT,
  },
} as const satisfies Record<string, ClientIdentity>;

export type IdentityName = keyof typeof CLIENT_IDENTITIES;

/** Parse `--client-info name/version` (the version is what follows the last slash). */
export function parseClientInfo(text: string): ClientInfo {
  const slash = text.lastIndexOf('/');
  const name = slash > 0 ? text.slice(0, slash).trim() : '';
  const version = slash > 0 ? text.slice(slash + 1).trim() : '';
  // eslint-disable-next-line no-control-regex
  if (!name || !version || /[\u0000-\u001f\u007f]/.test(text)) {
    throw new ConformError(
      'usage',
      `--client-info must look like name/version (e.g. "claude-code/2.1.76"), got "${text.replace(/[^\x20-\x7e]/g, '?').slice(0, 80)}"`,
    );
  }
  return { name, version };
}

/**
 * The identity a connection presents. `overrides` (from `--client-info`, in order) replace the
 * name and version of the default identities in turn, the i-th connection taking override
 * i mod n, and the User-Agent becomes Node's default; the capability sets stay the default ones,
 * so they still differ between connections.
 */
export function presentedIdentity(name: IdentityName, slot: number, overrides: readonly ClientInfo[] = []): ClientIdentity {
  const base: ClientIdentity = CLIENT_IDENTITIES[name];
  if (overrides.length === 0) return base;
  return { ...base, clientInfo: { ...overrides[slot % overrides.length]! }, userAgent: NODE_FETCH_USER_AGENT };
}

export type ServerRequestMethod = 'roots/list' | 'sampling/createMessage' | 'elicitation/create';

/**
 * The server-to-client requests an identity must answer (those its capabilities declare), each
 * with the answer of a client whose user shares no roots and declines every prompt. Probe
 * sessions override `elicitation/create` with their own answers.
 */
export function declinedRequests(identity: ClientIdentity): { method: ServerRequestMethod; answer: () => Record<string, unknown> }[] {
  const out: { method: ServerRequestMethod; answer: () => Record<string, unknown> }[] = [];
  if (identity.capabilities.roots) out.push({ method: 'roots/list', answer: () => ({ roots: [] }) });
  if (identity.capabilities.elicitation) out.push({ method: 'elicitation/create', answer: () => ({ action: 'decline' }) });
  if (identity.capabilities.sampling) {
    out.push({
      method: 'sampling/createMessage',
      answer: () => {
        throw new Error('the user declined the sampling request');
      },
    });
  }
  return out;
}
