import { createB2NativeClient, type B2NativeApi, type RetryEvent } from './b2/native-client.js';
import type { Credentials, ServerConfig } from './config.js';
import type { Logger } from './logger.js';
import type { S3Adapter } from './s3/adapter.js';

/** The backends bound to one credential. */
export interface Backends {
  b2: B2NativeApi;
  /** The Partner (master) key's client when one is configured, else the primary client. */
  partner: B2NativeApi;
  /** Created on first use: authorizes to learn the S3 endpoint, then loads the AWS SDK. */
  s3(): Promise<S3Adapter>;
}

/** `s3.<region>.backblazeb2.com` names its region; anything else (a sandbox) uses the configured one. */
function regionOf(s3ApiUrl: string, fallback: string): string {
  return /^s3\.([a-z0-9-]+)\.backblazeb2\.com$/.exec(new URL(s3ApiUrl).hostname)?.[1] ?? fallback;
}

export function createBackends(config: ServerConfig, credentials: Credentials, userAgent: string, logger: Logger): Backends {
  const onRetry = (event: RetryEvent) => logger.warn('b2.retry', { ...event });
  const b2 = createB2NativeClient({
    apiUrl: config.apiUrl,
    applicationKeyId: credentials.applicationKeyId,
    applicationKey: credentials.applicationKey,
    userAgent,
    onRetry,
  });
  const partner =
    credentials.masterKeyId && credentials.masterKey && credentials.masterKeyId !== credentials.applicationKeyId
      ? createB2NativeClient({
          apiUrl: config.apiUrl,
          applicationKeyId: credentials.masterKeyId,
          applicationKey: credentials.masterKey,
          userAgent,
          onRetry,
        })
      : b2;
  let s3: Promise<S3Adapter> | undefined;
  return {
    b2,
    partner,
    s3: () => {
      s3 ??= (async () => {
        const info = await b2.authorize();
        const { createS3Adapter } = await import('./s3/adapter.js');
        return createS3Adapter({
          endpoint: info.s3ApiUrl,
          region: regionOf(info.s3ApiUrl, config.region),
          accessKeyId: credentials.applicationKeyId,
          secretAccessKey: credentials.applicationKey,
          userAgent,
        });
      })();
      // A failed start (e.g. B2 unreachable) must not stick: the next call tries again.
      s3.catch(() => {
        s3 = undefined;
      });
      return s3;
    },
  };
}
