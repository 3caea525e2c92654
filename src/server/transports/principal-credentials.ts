import { ConfigError, readSetting, REFERENCE_KEY_FIELDS, type Credentials } from '../config.js';

/**
 * `principal` credential mode: `B2_PRINCIPAL_CREDENTIAL_MAP` maps a verified token subject to a
 * credential reference, and the reference to its own B2 key in `B2_CREDENTIAL_<REF>_…`. Every
 * mapped key is read and checked once, at start-up; error messages name variables, never values.
 */

/** A subject's key: looked up by `<issuer>#<sub>` first, then by the bare `sub`. */
export type PrincipalCredentials = ReadonlyMap<string, Credentials>;

const REFERENCE = /^[A-Za-z0-9_-]{1,80}$/;

const referencePrefix = (reference: string): string => `B2_CREDENTIAL_${reference.toUpperCase().replace(/-/g, '_')}`;

function referenceValue(env: NodeJS.ProcessEnv, prefix: string, field: (typeof REFERENCE_KEY_FIELDS)[number]): string | undefined {
  return env[`${prefix}_${field}`]?.trim() || undefined;
}

function referenceCredentials(env: NodeJS.ProcessEnv, reference: string): Credentials {
  const prefix = referencePrefix(reference);
  const [id, key, masterId, masterKey] = REFERENCE_KEY_FIELDS.map((field) => referenceValue(env, prefix, field));
  if (!id || !key) {
    throw new ConfigError(
      `B2_PRINCIPAL_CREDENTIAL_MAP names the reference "${reference}", but ${prefix}_APPLICATION_KEY_ID and ${prefix}_APPLICATION_KEY (or their _FILE forms) are not both set.`,
    );
  }
  if (!masterId !== !masterKey) throw new ConfigError(`${prefix}_MASTER_KEY_ID and ${prefix}_MASTER_KEY must be set together.`);
  return { applicationKeyId: id, applicationKey: key, ...(masterId && masterKey && { masterKeyId: masterId, masterKey }) };
}

function parsedMap(raw: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('B2_PRINCIPAL_CREDENTIAL_MAP must be a JSON object from token subject to credential reference (it is not JSON).');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError('B2_PRINCIPAL_CREDENTIAL_MAP must be a JSON object from token subject to credential reference.');
  }
  return parsed as Record<string, unknown>;
}

export function loadPrincipalCredentials(env: NodeJS.ProcessEnv): PrincipalCredentials {
  const raw = readSetting(env, 'http', 'B2_PRINCIPAL_CREDENTIAL_MAP');
  if (raw === undefined) throw new ConfigError('B2_HTTP_CREDENTIAL_MODE=principal needs B2_PRINCIPAL_CREDENTIAL_MAP.');
  const byPrefix = new Map<string, string>();
  const credentials = new Map<string, Credentials>();
  for (const [subject, reference] of Object.entries(parsedMap(raw))) {
    if (subject.trim() === '') throw new ConfigError('B2_PRINCIPAL_CREDENTIAL_MAP has an empty subject.');
    if (typeof reference !== 'string' || !REFERENCE.test(reference)) {
      throw new ConfigError(
        `B2_PRINCIPAL_CREDENTIAL_MAP maps "${subject}" to ${JSON.stringify(reference)}: a reference is 1-80 letters, digits, _ or -.`,
      );
    }
    const prefix = referencePrefix(reference);
    const other = byPrefix.get(prefix);
    if (other !== undefined && other !== reference)
      throw new ConfigError(`B2_PRINCIPAL_CREDENTIAL_MAP: the references "${other}" and "${reference}" both read ${prefix}_…`);
    byPrefix.set(prefix, reference);
    credentials.set(subject, referenceCredentials(env, reference));
  }
  if (credentials.size === 0) throw new ConfigError('B2_PRINCIPAL_CREDENTIAL_MAP maps no subject.');
  return credentials;
}

/** The key mapped to a verified subject, if any. */
export function credentialsForSubject(map: PrincipalCredentials, issuer: string, subject: string): Credentials | undefined {
  return map.get(`${issuer}#${subject}`) ?? map.get(subject);
}
