import { createHmac, randomBytes } from 'node:crypto';
import type { Credentials } from '../config.js';
import { StatusError } from '../errors.js';

/** Request headers by lower-case name (Node's `IncomingHttpHeaders`, or a Web `Headers` as entries). */
export type HeaderRecord = Readonly<Record<string, string | readonly string[] | undefined>>;

/** One credential field and the header names (canonical first, then alias) that carry it. */
interface HeaderField {
  label: string;
  names: readonly [string, string];
}

interface HeaderPair {
  id: HeaderField;
  secret: HeaderField;
}

const pair = (idNames: [string, string], secretNames: [string, string]): HeaderPair => ({
  id: { label: idNames[0], names: idNames },
  secret: { label: secretNames[0], names: secretNames },
});

/**
 * `headers` credential mode: the primary key pair is required; an application-key override and a
 * master (Partner) key pair are optional, each all-or-nothing.
 */
const PRIMARY = pair(['x-b2-mcp-key-id', 'x-b2-key-id'], ['x-b2-mcp-key', 'x-b2-key']);
const APPLICATION_OVERRIDE = pair(['x-b2-mcp-app-key-id', 'x-b2-app-key-id'], ['x-b2-mcp-app-key', 'x-b2-app-key']);
const MASTER = pair(['x-b2-mcp-master-key-id', 'x-b2-master-key-id'], ['x-b2-mcp-master-key', 'x-b2-master-key']);

/** Every header that can carry a B2 credential (lower-case). */
const CREDENTIAL_HEADER_NAMES: readonly string[] = [PRIMARY, APPLICATION_OVERRIDE, MASTER].flatMap((p) => [
  ...p.id.names,
  ...p.secret.names,
]);

export type CredentialFailureCode =
  | 'missing_credentials'
  | 'conflicting_headers'
  | 'partial_credential'
  | 'credential_headers_rejected'
  | 'principal_not_mapped';

/** A credential the request's headers carry wrongly, or not at all, or none is mapped to its subject. */
export class CredentialFailure extends StatusError {
  constructor(status: 400 | 401 | 403, code: CredentialFailureCode, message: string) {
    super(status, code, message);
    this.name = 'CredentialFailure';
  }
}

function headerValues(headers: HeaderRecord, name: string): string[] {
  const raw = headers[name];
  const values: readonly string[] = typeof raw === 'string' ? [raw] : (raw ?? []);
  return values.map((value) => value.trim()).filter((value) => value !== '');
}

export function hasCredentialHeaders(headers: HeaderRecord): boolean {
  return CREDENTIAL_HEADER_NAMES.some((name) => headerValues(headers, name).length > 0);
}

/** The field's value from whichever alias carries it; aliases that disagree are an error. */
function fieldValue(headers: HeaderRecord, field: HeaderField): string | undefined {
  const values = new Set(field.names.flatMap((name) => headerValues(headers, name)));
  if (values.size > 1) {
    throw new CredentialFailure(
      400,
      'conflicting_headers',
      `Conflicting credential headers: ${field.names.join(' and ')} carry different values.`,
    );
  }
  return values.values().next().value;
}

function pairValue(headers: HeaderRecord, p: HeaderPair): [string, string] | undefined {
  const id = fieldValue(headers, p.id);
  const secret = fieldValue(headers, p.secret);
  if (id === undefined && secret === undefined) return undefined;
  if (id === undefined || secret === undefined) {
    const [present, absent] = id === undefined ? [p.secret.label, p.id.label] : [p.id.label, p.secret.label];
    throw new CredentialFailure(400, 'partial_credential', `Incomplete credential pair: ${present} was sent without ${absent}.`);
  }
  return [id, secret];
}

/**
 * The request's B2 credentials in `headers` mode. Throws {@link CredentialFailure}. With an
 * application-key override, the override serves native/S3 calls and the primary key stands in
 * for the master key unless a master pair is sent too.
 */
export function credentialsFromHeaders(headers: HeaderRecord): Credentials {
  const primary = pairValue(headers, PRIMARY);
  const application = pairValue(headers, APPLICATION_OVERRIDE);
  const master = pairValue(headers, MASTER);
  if (!primary) {
    throw new CredentialFailure(
      401,
      'missing_credentials',
      `Missing B2 credentials: send the ${PRIMARY.id.label} and ${PRIMARY.secret.label} headers.`,
    );
  }
  const [applicationKeyId, applicationKey] = application ?? primary;
  const partner = master ?? (application ? primary : undefined);
  return { applicationKeyId, applicationKey, ...(partner && { masterKeyId: partner[0], masterKey: partner[1] }) };
}

/** In `server` and `principal` mode the server chooses the key: a request must not bring one. */
export function rejectCredentialHeaders(headers: HeaderRecord, mode: 'server' | 'principal'): void {
  if (hasCredentialHeaders(headers)) {
    const source = mode === 'server' ? 'its own B2 credentials' : "the B2 key mapped to the token's subject";
    throw new CredentialFailure(
      400,
      'credential_headers_rejected',
      `This server uses ${source} (B2_HTTP_CREDENTIAL_MODE=${mode}); do not send credential headers.`,
    );
  }
}

/** A per-process secret, so a credential key is useless outside this process. */
const FINGERPRINT_SECRET = randomBytes(32);

/** A stable, non-reversible key for a credential (rate limits, in-flight counts, session ownership). */
export function credentialKey(credentials: Credentials): string {
  return credentialKeyUnder(FINGERPRINT_SECRET, credentials);
}

/** {@link credentialKey} under a secret that instances sharing their limits share. */
export function credentialKeyUnder(secret: Buffer, credentials: Credentials): string {
  const material = [
    credentials.applicationKeyId,
    credentials.applicationKey,
    credentials.masterKeyId ?? '',
    credentials.masterKey ?? '',
  ].join('\0');
  return createHmac('sha256', secret).update(material).digest('hex').slice(0, 32);
}
