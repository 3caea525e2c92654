/**
 * What every front end of the sandbox shares: the store, the fault injector, the request log and
 * the public URLs. The native front end, the S3 front end and the admin API each get one.
 */
import type { FaultInjector, FaultKind } from './faults.js';
import type { SandboxStore } from './store.js';

export interface RequestRecord {
  seq: number;
  time: number;
  api: 'native' | 's3';
  operation: string;
  method: string;
  status: number;
  /** Set when the fault injector replaced or dropped the response. */
  fault?: FaultKind;
}

const REQUEST_LOG_LIMIT = 100_000;

/** Every non-admin request with its outcome; the oldest entries go once the limit is reached. */
export class RequestLog {
  private records: RequestRecord[] = [];
  private nextSeq = 1;

  record(entry: Omit<RequestRecord, 'seq'>): void {
    this.records.push({ seq: this.nextSeq++, ...entry });
    if (this.records.length > REQUEST_LOG_LIMIT) this.records.splice(0, this.records.length - REQUEST_LOG_LIMIT);
  }

  list(filter: { operation?: string; sinceSeq?: number } = {}): RequestRecord[] {
    return this.records.filter(
      (r) => (filter.operation === undefined || r.operation === filter.operation) && r.seq > (filter.sinceSeq ?? 0),
    );
  }

  /** Drops the entries; sequence numbers keep counting. */
  clear(): void {
    this.records = [];
  }
}

export interface SandboxUrls {
  /** Base URL of the native API (also `downloadUrl` and `groupsApiUrl`). */
  apiUrl: string;
  /** Base URL of the S3-compatible API (its own listener, path-style addressing). */
  s3Url: string;
  /** Empty without the admin listener. */
  adminUrl: string;
}

export interface SandboxContext {
  store: SandboxStore;
  faults: FaultInjector;
  requests: RequestLog;
  urls: SandboxUrls;
}
