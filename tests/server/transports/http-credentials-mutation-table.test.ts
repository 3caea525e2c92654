/**
 * Credential headers over HTTP, from the documented header names (README, `headers` mode): every
 * name alone is a credential header, every pair is all-or-nothing with a message naming both
 * halves, aliases must agree, and `server` mode refuses any of them.
 */
import { describe, expect, it } from 'vitest';
import {
  CredentialFailure,
  credentialKey,
  credentialsFromHeaders,
  hasCredentialHeaders,
  rejectCredentialHeaders,
} from '../../../src/server/transports/http-credentials.js';
import { thrownBy } from '../../support/failure.js';

/** [canonical id, alias id, canonical secret, alias secret] of each pair. */
const PAIRS = {
  primary: ['x-b2-mcp-key-id', 'x-b2-key-id', 'x-b2-mcp-key', 'x-b2-key'],
  application: ['x-b2-mcp-app-key-id', 'x-b2-app-key-id', 'x-b2-mcp-app-key', 'x-b2-app-key'],
  master: ['x-b2-mcp-master-key-id', 'x-b2-master-key-id', 'x-b2-mcp-master-key', 'x-b2-master-key'],
} as const;
const EVERY_NAME = Object.values(PAIRS).flat();
const PRIMARY = { 'x-b2-mcp-key-id': 'id', 'x-b2-mcp-key': 'secret' };

const failure = (run: () => unknown): CredentialFailure => thrownBy(CredentialFailure, run);

describe('every credential header name counts', () => {
  it('there are twelve, and each alone is a credential header', () => {
    expect(EVERY_NAME).toHaveLength(12);
    for (const name of EVERY_NAME) {
      expect(hasCredentialHeaders({ [name]: 'v' }), name).toBe(true);
      expect(hasCredentialHeaders({ [name]: ['', 'v'] }), name).toBe(true);
    }
  });

  it('blank values and unrelated headers do not count', () => {
    expect(hasCredentialHeaders({})).toBe(false);
    expect(hasCredentialHeaders({ 'x-b2-mcp-key': '   ', 'x-b2-key-id': [] })).toBe(false);
    expect(hasCredentialHeaders({ authorization: 'Bearer x', 'x-b2-mcp-keyid': 'v', cookie: 'a=b' })).toBe(false);
  });

  it('server mode refuses any of them with 400 credential_headers_rejected, and lets a request without them through', () => {
    expect(() => rejectCredentialHeaders({ authorization: 'Bearer x' }, 'server')).not.toThrow();
    for (const name of EVERY_NAME) {
      const error = failure(() => rejectCredentialHeaders({ [name]: 'v' }, 'server'));
      expect([error.name, error.status, error.code]).toEqual(['CredentialFailure', 400, 'credential_headers_rejected']);
      expect(error.message).toBe(
        'This server uses its own B2 credentials (B2_HTTP_CREDENTIAL_MODE=server); do not send credential headers.',
      );
    }
  });
});

describe('pairs are all-or-nothing', () => {
  it.each(Object.entries(PAIRS))(
    '%s: either half alone, under either alias, is a partial credential naming both halves',
    (which, [id, idAlias, secret, secretAlias]) => {
      const base = which === 'primary' ? {} : PRIMARY;
      for (const [sent, present, absent] of [
        [id, id, secret],
        [idAlias, id, secret],
        [secret, secret, id],
        [secretAlias, secret, id],
      ] as const) {
        const error = failure(() => credentialsFromHeaders({ ...base, [sent]: 'v' }));
        expect([error.status, error.code]).toEqual([400, 'partial_credential']);
        expect(error.message).toBe(`Incomplete credential pair: ${present} was sent without ${absent}.`);
      }
    },
  );

  it.each(Object.entries(PAIRS))('%s: aliases that disagree conflict, naming both aliases', (which, [id, idAlias, secret, secretAlias]) => {
    const base = which === 'primary' ? {} : PRIMARY;
    const idConflict = failure(() => credentialsFromHeaders({ ...base, [id]: 'a', [idAlias]: 'b', [secret]: 's' }));
    expect([idConflict.status, idConflict.code, idConflict.message]).toEqual([
      400,
      'conflicting_headers',
      `Conflicting credential headers: ${id} and ${idAlias} carry different values.`,
    ]);
    const secretConflict = failure(() => credentialsFromHeaders({ ...base, [id]: 'a', [secret]: 's', [secretAlias]: 't' }));
    expect(secretConflict.message).toBe(`Conflicting credential headers: ${secret} and ${secretAlias} carry different values.`);
  });

  it('aliases that agree (after trimming) are one value', () => {
    expect(credentialsFromHeaders({ 'x-b2-mcp-key-id': 'id', 'x-b2-key-id': ' id ', 'x-b2-key': 'secret' })).toEqual({
      applicationKeyId: 'id',
      applicationKey: 'secret',
    });
  });

  it('without the primary pair the request is unauthenticated, naming the headers to send', () => {
    for (const headers of [{}, { 'x-b2-mcp-app-key-id': 'a', 'x-b2-mcp-app-key': 'b' }]) {
      const error = failure(() => credentialsFromHeaders(headers));
      expect([error.name, error.status, error.code]).toEqual(['CredentialFailure', 401, 'missing_credentials']);
      expect(error.message).toBe('Missing B2 credentials: send the x-b2-mcp-key-id and x-b2-mcp-key headers.');
    }
  });
});

describe('credential keys', () => {
  it('differ whenever any of the four parts differs, and parts do not run into each other', () => {
    const base = { applicationKeyId: 'id', applicationKey: 'secret', masterKeyId: 'm', masterKey: 'ms' };
    const keys = [
      base,
      { ...base, applicationKeyId: 'id2' },
      { ...base, applicationKey: 'secret2' },
      { ...base, masterKeyId: 'm2' },
      { ...base, masterKey: 'ms2' },
      { applicationKeyId: 'id', applicationKey: 'secret' },
      { applicationKeyId: 'ids', applicationKey: 'ecret' },
      { applicationKeyId: 'id', applicationKey: 'secret', masterKeyId: 'ms' },
      { applicationKeyId: 'id', applicationKey: 'secret', masterKey: 'ms' },
    ].map(credentialKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(credentialKey({ ...base })).toBe(keys[0]);
  });
});
