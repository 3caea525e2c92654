import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/**
 * A local OAuth authorization server on loopback, with its own RSA keys: it publishes RFC 8414
 * metadata and a JWKS, and signs access tokens. It also issues opaque tokens and answers for them
 * at an RFC 7662 introspection endpoint (`/introspect`, HTTP Basic with {@link INTROSPECTION_CLIENT}).
 * It counts what it serves, and can rotate keys.
 */

/** The client the introspection endpoint accepts (a secret of the tests' own making). */
export const INTROSPECTION_CLIENT = { id: 'b2-mcp-resource', secret: 'introspection-client-secret-for-tests' };

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export interface LocalIssuer {
  issuer: string;
  jwksUri: string;
  /** Requests served per path. */
  served: Map<string, number>;
  /** Signs with the current key unless another is given; `exp` one hour from now unless set. */
  sign(claims: JWTPayload, options?: { key?: SigningKey; header?: Record<string, unknown> }): Promise<string>;
  /** A key the JWKS does not publish (same `kid` as the current one unless given). */
  foreignKey(kid?: string): Promise<SigningKey>;
  /** Publishes a new key next to the old ones and signs with it from now on. */
  rotate(): Promise<SigningKey>;
  introspectionEndpoint: string;
  /** A random opaque token the introspection endpoint answers `active` for, with `iss`, one hour's `exp` and these claims. */
  opaqueToken(claims: Record<string, unknown>): string;
  /** From now on the token is inactive. */
  revoke(token: string): void;
  close(): Promise<void>;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startLocalIssuer(): Promise<LocalIssuer> {
  const keys = [await signingKey('key-1')];
  const served = new Map<string, number>();
  const opaque = new Map<string, Record<string, unknown>>();
  let issuer = '';
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    served.set(path, (served.get(path) ?? 0) + 1);
    const send = (body: unknown, status = 200): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === '/.well-known/oauth-authorization-server')
      return send({
        issuer,
        jwks_uri: `${issuer}/jwks`,
        token_endpoint: `${issuer}/token`,
        introspection_endpoint: `${issuer}/introspect`,
      });
    if (path === '/jwks') return send({ keys: keys.map((key) => key.jwk) });
    if (path === '/introspect' && req.method === 'POST') {
      if (req.headers.authorization !== CLIENT_BASIC) return send({ error: 'invalid_client' }, 401);
      void formOf(req).then((form) => send(opaque.get(form.get('token') ?? '') ?? { active: false }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const current = (): SigningKey => keys[keys.length - 1]!;
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    served,
    sign: async (claims, options = {}) => {
      const key = options.key ?? current();
      const nowSeconds = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, iat: nowSeconds, exp: nowSeconds + 3600, ...claims })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: key.kid, ...options.header })
        .sign(key.privateKey);
    },
    foreignKey: (kid = current().kid) => signingKey(kid),
    rotate: async () => {
      const next = await signingKey(`key-${keys.length + 1}`);
      keys.push(next);
      return next;
    },
    introspectionEndpoint: `${issuer}/introspect`,
    opaqueToken: (claims) => {
      const token = randomBytes(24).toString('base64url');
      opaque.set(token, { active: true, iss: issuer, exp: Math.floor(Date.now() / 1000) + 3600, token_type: 'Bearer', ...claims });
      return token;
    },
    revoke: (token) => void opaque.delete(token),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const CLIENT_BASIC = `Basic ${Buffer.from(`${INTROSPECTION_CLIENT.id}:${INTROSPECTION_CLIENT.secret}`).toString('base64')}`;

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
