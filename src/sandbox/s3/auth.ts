/**
 * AWS Signature Version 4 verification for the S3 front end, in both forms: the `Authorization`
 * header and the presigned query string (`X-Amz-Signature`). The expected signature is computed
 * by `@smithy/signature-v4` — the signer the AWS SDK itself uses — from the request as received
 * and the application key's secret, then compared in constant time. Like B2, the S3 API refuses
 * the account's master key.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { KeyRecord } from '../model.js';
import { REGION, type SandboxStore } from '../store.js';
import { S3Failure } from './errors.js';

const ALGORITHM = 'AWS4-HMAC-SHA256';
const SERVICE = 's3';
const MAX_SKEW_MS = 15 * 60_000;
const MAX_PRESIGNED_SECONDS = 7 * 24 * 3600;
const PAYLOAD_HEADER = 'x-amz-content-sha256';
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

/** Decoded query parameters; a repeated name keeps every value. */
export type Query = Record<string, string | string[]>;

export interface WireRequest {
  method: string;
  /** The path exactly as sent (still percent-encoded), without the query. */
  rawPath: string;
  query: Query;
  headers: IncomingHttpHeaders;
}

/** What the signature promises about the body. */
export type PayloadPromise = { kind: 'unsigned' } | { kind: 'sha256'; hex: string };

export interface Caller {
  /** null for an anonymous request (allowed only for reads of public buckets). */
  key: KeyRecord | null;
  payload: PayloadPromise;
  presigned: boolean;
}

const authError = (status: number, code: string, message: string) => new S3Failure(status, code, message);
const malformedHeader = (message: string) => authError(400, 'AuthorizationHeaderMalformed', message);
const malformedQuery = (message: string) => authError(400, 'AuthorizationQueryParametersError', message);
const mismatch = () =>
  authError(
    403,
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  );

/** Parse a raw query string, percent-decoding names and values (`+` stays a plus). */
export function parseQuery(raw: string): Query {
  const query: Query = Object.create(null) as Query;
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
      value = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1));
    } catch {
      throw new S3Failure(400, 'InvalidURI', "Couldn't parse the specified URI.");
    }
    const existing = query[name];
    if (existing === undefined) query[name] = value;
    else query[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return query;
}

export function queryValue(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** `YYYYMMDDTHHMMSSZ` → Date, or undefined when malformed. */
function parseAmzDate(text: string | undefined): Date | undefined {
  const m = text ? /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text) : null;
  if (!m) return undefined;
  const date = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

interface CredentialScope {
  accessKeyId: string;
  date: string;
  region: string;
}

function parseCredential(credential: string, fail: (message: string) => S3Failure): CredentialScope {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request' || !parts[0]) {
    throw fail(`the credential '${credential}' is malformed; expecting '<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request'`);
  }
  const [accessKeyId, date, region, service] = parts as [string, string, string, string];
  if (service !== SERVICE) throw fail(`the service '${service}' is wrong; expecting '${SERVICE}'`);
  if (region !== REGION) throw fail(`the region '${region}' is wrong; expecting '${REGION}'`);
  return { accessKeyId, date, region };
}

/** The application key behind an access key id; B2's S3 API does not accept the master key. */
function accessKeyFor(store: SandboxStore, accessKeyId: string): KeyRecord {
  const key = accessKeyId === store.accountId ? store.masterKey : store.getKey(accessKeyId);
  if (!key) throw authError(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  if (key.isMaster) throw authError(403, 'InvalidAccessKeyId', 'Malformed Access Key Id');
  if (key.expirationTimestamp !== null && key.expirationTimestamp <= store.now()) {
    throw authError(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided has expired.');
  }
  return key;
}

function payloadPromise(value: string): PayloadPromise {
  if (value === UNSIGNED_PAYLOAD) return { kind: 'unsigned' };
  if (/^[0-9a-f]{64}$/.test(value)) return { kind: 'sha256', hex: value };
  if (value.startsWith('STREAMING-')) {
    throw new S3Failure(
      501,
      'NotImplemented',
      `The sandbox does not accept aws-chunked uploads (${value}); sign the payload or send UNSIGNED-PAYLOAD.`,
    );
  }
  throw new S3Failure(400, 'InvalidArgument', `x-amz-content-sha256 must be a hex SHA-256 or ${UNSIGNED_PAYLOAD}`);
}

/**
 * The request as the client signed it: only the headers it named, plus the payload hash header
 * (which S3 uses as the canonical payload line even when it is not itself signed).
 */
function signingRequest(wire: WireRequest, signedHeaders: string[], payload: string): { request: HttpRequest; unsignable: Set<string> } {
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = headerValue(wire.headers, name);
    if (value === undefined) throw mismatch();
    headers[name] = value;
  }
  const unsignable = new Set<string>();
  if (!(PAYLOAD_HEADER in headers)) {
    headers[PAYLOAD_HEADER] = payload;
    unsignable.add(PAYLOAD_HEADER);
  }
  const host = headers.host ?? '';
  const request = new HttpRequest({
    method: wire.method,
    protocol: 'http:',
    hostname: host,
    path: wire.rawPath,
    query: { ...wire.query },
    headers,
  });
  return { request, unsignable };
}

function signerFor(key: KeyRecord): SignatureV4 {
  return new SignatureV4({
    credentials: { accessKeyId: key.applicationKeyId, secretAccessKey: key.applicationKey },
    region: REGION,
    service: SERVICE,
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
}

function sameSignature(expected: string | undefined, given: string): boolean {
  if (!expected || expected.length !== given.length) return false;
  return timingSafeEqual(Buffer.from(expected), Buffer.from(given));
}

function splitSignedHeaders(list: string): string[] {
  const names = list.split(';').filter(Boolean);
  if (!names.includes('host')) throw mismatch();
  return names;
}

async function verifyHeader(wire: WireRequest, store: SandboxStore, authorization: string): Promise<Caller> {
  const match = /^AWS4-HMAC-SHA256\s+(.+)$/.exec(authorization);
  if (!match) {
    if (authorization.startsWith('AWS ')) throw authError(400, 'InvalidRequest', `Please use ${ALGORITHM} (Signature Version 4).`);
    throw malformedHeader('The authorization header is malformed; expecting AWS4-HMAC-SHA256.');
  }
  const fields: Record<string, string> = {};
  for (const part of match[1]!.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  const { Credential: credential, SignedHeaders: signedList, Signature: signature } = fields;
  if (!credential || !signedList || !signature) {
    throw malformedHeader('The authorization header is malformed; it needs Credential, SignedHeaders and Signature.');
  }
  const scope = parseCredential(credential, malformedHeader);
  const amzDate = headerValue(wire.headers, 'x-amz-date');
  const signingDate = parseAmzDate(amzDate);
  if (!signingDate) throw authError(403, 'AccessDenied', 'AWS authentication requires a valid x-amz-date header.');
  if (scope.date !== amzDate!.slice(0, 8)) throw malformedHeader(`the credential date '${scope.date}' does not match x-amz-date`);
  if (Math.abs(signingDate.getTime() - store.now()) > MAX_SKEW_MS) {
    throw authError(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
  }
  const key = accessKeyFor(store, scope.accessKeyId);
  const payloadHeader = headerValue(wire.headers, PAYLOAD_HEADER);
  if (payloadHeader === undefined)
    throw new S3Failure(400, 'InvalidRequest', `Missing required header for this request: ${PAYLOAD_HEADER}`);
  const payload = payloadPromise(payloadHeader);
  const signedHeaders = splitSignedHeaders(signedList);
  const { request, unsignable } = signingRequest(wire, signedHeaders, payloadHeader);
  const signed = await signerFor(key).sign(request, {
    signingDate,
    signingRegion: scope.region,
    signingService: SERVICE,
    signableHeaders: new Set(signedHeaders),
    unsignableHeaders: unsignable,
  });
  const expected = /SignedHeaders=([^,]+), Signature=([0-9a-f]+)$/.exec(String(signed.headers.authorization));
  if (!expected || expected[1] !== signedList || !sameSignature(expected[2], signature)) throw mismatch();
  return { key, payload, presigned: false };
}

async function verifyPresigned(wire: WireRequest, store: SandboxStore): Promise<Caller> {
  const param = (name: string) => {
    const value = queryValue(wire.query, name);
    if (value === undefined || value === '') throw malformedQuery(`Query-string authentication requires the ${name} parameter.`);
    return value;
  };
  if (param('X-Amz-Algorithm') !== ALGORITHM) throw malformedQuery(`X-Amz-Algorithm only supports "${ALGORITHM}"`);
  const scope = parseCredential(param('X-Amz-Credential'), malformedQuery);
  const amzDate = param('X-Amz-Date');
  const signingDate = parseAmzDate(amzDate);
  if (!signingDate) throw malformedQuery('X-Amz-Date must be in the ISO8601 long format YYYYMMDDTHHMMSSZ');
  if (scope.date !== amzDate.slice(0, 8)) throw malformedQuery(`the credential date '${scope.date}' does not match X-Amz-Date`);
  const expiresText = param('X-Amz-Expires');
  const expiresIn = Number(expiresText);
  if (!/^\d+$/.test(expiresText) || expiresIn < 1 || expiresIn > MAX_PRESIGNED_SECONDS) {
    throw malformedQuery(`X-Amz-Expires must be a whole number of seconds from 1 to ${MAX_PRESIGNED_SECONDS}`);
  }
  const now = store.now();
  if (signingDate.getTime() - now > MAX_SKEW_MS) throw authError(403, 'AccessDenied', 'Request is not valid yet');
  if (now > signingDate.getTime() + expiresIn * 1000) throw authError(403, 'AccessDenied', 'Request has expired');
  const signature = param('X-Amz-Signature');
  const signedList = param('X-Amz-SignedHeaders');
  const key = accessKeyFor(store, scope.accessKeyId);
  const payloadParam = Object.keys(wire.query).find((name) => name.toLowerCase() === PAYLOAD_HEADER);
  const payloadText = (payloadParam && queryValue(wire.query, payloadParam)) || UNSIGNED_PAYLOAD;
  const payload = payloadPromise(payloadText);
  const signedHeaders = splitSignedHeaders(signedList);
  const { request, unsignable } = signingRequest(wire, signedHeaders, payloadText);
  const presigned = await signerFor(key).presign(request, {
    signingDate,
    expiresIn,
    signingRegion: scope.region,
    signingService: SERVICE,
    signableHeaders: new Set(signedHeaders),
    unsignableHeaders: unsignable,
    // Everything is already where the client put it: keep headers as headers.
    unhoistableHeaders: new Set(Object.keys(request.headers)),
  });
  const expected = presigned.query?.['X-Amz-Signature'];
  if (presigned.query?.['X-Amz-SignedHeaders'] !== signedList || typeof expected !== 'string' || !sameSignature(expected, signature)) {
    throw mismatch();
  }
  return { key, payload, presigned: true };
}

/** Who sent the request, after checking its signature; anonymous when it carries none. */
export async function authenticate(wire: WireRequest, store: SandboxStore): Promise<Caller> {
  const authorization = headerValue(wire.headers, 'authorization');
  if (authorization) return verifyHeader(wire, store, authorization);
  if (queryValue(wire.query, 'X-Amz-Signature') !== undefined || queryValue(wire.query, 'X-Amz-Credential') !== undefined) {
    return verifyPresigned(wire, store);
  }
  return { key: null, payload: { kind: 'unsigned' }, presigned: false };
}
