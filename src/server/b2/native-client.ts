/**
 * The native B2 API client: the one module that speaks the B2 Native API (v4) for b2-mcp.
 *
 * Tool handlers depend only on the `B2NativeApi` interface, so this implementation could be
 * replaced by the official SDK in one place. Behaviour:
 * - authorizes lazily on first use and caches the token (concurrent callers share one request);
 * - a 401 `expired_auth_token`/`bad_auth_token` re-authorizes once and repeats the call (B2 rejected
 *   it before processing, so this is safe even for mutations);
 * - retries per `retry-policy.ts` (429 always; 5xx/timeouts/network only when idempotent);
 * - a per-request timeout (`timeoutMs`, default 30 s; for downloads it covers the response headers);
 * - `http://` endpoints only on loopback hosts (`endpoint.ts`);
 * - failures are `B2Error`s (`errors.ts`) whose messages never contain credentials or tokens.
 */
import { B2ApiError, B2ConfigError, B2Error, B2InvalidResponseError, B2TransportError } from './errors.js';
import { DEFAULT_B2_API_URL, checkEndpoint } from './endpoint.js';
import { DEFAULT_RETRY, backoffDelay, isRetryable, parseRetryAfter, type ResolvedRetry, type RetryOptions } from './retry-policy.js';
import type {
  B2AccountInfo,
  B2AllowedScope,
  B2Bucket,
  B2CreateBucketRequest,
  B2CreateGroupMemberRequest,
  B2CreateGroupMemberResponse,
  B2CreateKeyRequest,
  B2CreatedKey,
  B2DeleteFileVersionRequest,
  B2Download,
  B2DownloadRequest,
  B2EjectGroupMemberRequest,
  B2GroupMember,
  B2Key,
  B2ListBucketsRequest,
  B2ListFileNamesRequest,
  B2ListFileNamesResponse,
  B2ListFileVersionsRequest,
  B2ListFileVersionsResponse,
  B2ListGroupMembersRequest,
  B2ListGroupMembersResponse,
  B2ListGroupsRequest,
  B2ListGroupsResponse,
  B2ListKeysRequest,
  B2ListKeysResponse,
  B2ListUnfinishedLargeFilesRequest,
  B2ListPartsRequest,
  B2ListPartsResponse,
  B2Part,
  B2ListUnfinishedLargeFilesResponse,
  B2NotificationRulesResponse,
  B2ReserveTrialRequest,
  B2ReserveTrialResponse,
  B2SetNotificationRulesRequest,
  B2UpdateBucketRequest,
  B2UpdateFileLegalHoldRequest,
  B2UpdateFileLegalHoldResponse,
  B2UpdateFileRetentionRequest,
  B2UpdateFileRetentionResponse,
} from './types.js';

const B2_API_VERSION = 'v4';
const DEFAULT_TIMEOUT_MS = 30_000;

export interface CallOptions {
  /** Abort the call (and any retry wait); the abort reason is rethrown as is. */
  signal?: AbortSignal;
}

/** The B2 Native API operations b2-mcp uses. */
export interface B2NativeApi {
  /** The account info for the configured key (cached; `force` re-authorizes). No token inside. */
  authorize(options?: { force?: boolean } & CallOptions): Promise<B2AccountInfo>;
  listBuckets(request?: B2ListBucketsRequest, options?: CallOptions): Promise<{ buckets: B2Bucket[] }>;
  createBucket(request: B2CreateBucketRequest, options?: CallOptions): Promise<B2Bucket>;
  updateBucket(request: B2UpdateBucketRequest, options?: CallOptions): Promise<B2Bucket>;
  deleteBucket(request: { bucketId: string }, options?: CallOptions): Promise<B2Bucket>;
  listKeys(request?: B2ListKeysRequest, options?: CallOptions): Promise<B2ListKeysResponse>;
  createKey(request: B2CreateKeyRequest, options?: CallOptions): Promise<B2CreatedKey>;
  deleteKey(request: { applicationKeyId: string }, options?: CallOptions): Promise<B2Key>;
  listFileNames(request: B2ListFileNamesRequest, options?: CallOptions): Promise<B2ListFileNamesResponse>;
  listFileVersions(request: B2ListFileVersionsRequest, options?: CallOptions): Promise<B2ListFileVersionsResponse>;
  listUnfinishedLargeFiles(request: B2ListUnfinishedLargeFilesRequest, options?: CallOptions): Promise<B2ListUnfinishedLargeFilesResponse>;
  /** Parts uploaded so far to an unfinished large file (B2 requires writeFiles). */
  listParts(request: B2ListPartsRequest, options?: CallOptions): Promise<B2ListPartsResponse>;
  updateFileLegalHold(request: B2UpdateFileLegalHoldRequest, options?: CallOptions): Promise<B2UpdateFileLegalHoldResponse>;
  updateFileRetention(request: B2UpdateFileRetentionRequest, options?: CallOptions): Promise<B2UpdateFileRetentionResponse>;
  getBucketNotificationRules(request: { bucketId: string }, options?: CallOptions): Promise<B2NotificationRulesResponse>;
  setBucketNotificationRules(request: B2SetNotificationRulesRequest, options?: CallOptions): Promise<B2NotificationRulesResponse>;
  /** Streams the latest visible version of a file; cancel `body` if not read to the end. */
  downloadFileByName(request: B2DownloadRequest, options?: CallOptions): Promise<B2Download>;
  deleteFileVersion(request: B2DeleteFileVersionRequest, options?: CallOptions): Promise<{ fileId: string; fileName: string }>;
  listGroups(request: B2ListGroupsRequest, options?: CallOptions): Promise<B2ListGroupsResponse>;
  listGroupMembers(request: B2ListGroupMembersRequest, options?: CallOptions): Promise<B2ListGroupMembersResponse>;
  ejectGroupMember(request: B2EjectGroupMemberRequest, options?: CallOptions): Promise<B2GroupMember>;
  createGroupMember(request: B2CreateGroupMemberRequest, options?: CallOptions): Promise<B2CreateGroupMemberResponse>;
  reserveTrialCreateAccount(request: B2ReserveTrialRequest, options?: CallOptions): Promise<B2ReserveTrialResponse>;
}

export interface RetryEvent {
  operation: string;
  /** The attempt that failed (1 = the first). */
  attempt: number;
  delayMs: number;
  status: number;
  code: string;
}

export interface B2NativeClientOptions {
  /** Authorization base URL (B2_API_URL); default https://api.backblazeb2.com. */
  apiUrl?: string;
  applicationKeyId: string;
  applicationKey: string;
  fetch?: typeof fetch;
  /** Full User-Agent, e.g. `b2-mcp/1.2.3 my-suffix`; default `b2-mcp/dev`. */
  userAgent?: string;
  retry?: RetryOptions;
  timeoutMs?: number;
  /** Called before each retry wait (for logs and retry-budget warnings). */
  onRetry?: (event: RetryEvent) => void;
}

interface AuthState {
  token: string;
  info: B2AccountInfo;
}

interface JsonCall<T> {
  operation: string;
  idempotent: boolean;
  /** Partner calls go to `groupsApiUrl`. */
  api?: 'storage' | 'groups';
  body: (info: B2AccountInfo) => Record<string, unknown>;
  check: (json: Record<string, unknown>) => T;
}

/** `b2-mcp/<version>` plus an optional suffix token (B2_MCP_UA_SUFFIX). */
export function b2UserAgent(version: string, suffix?: string): string {
  const trimmed = suffix?.trim();
  return trimmed ? `b2-mcp/${version} ${trimmed}` : `b2-mcp/${version}`;
}

export function createB2NativeClient(options: B2NativeClientOptions): B2NativeApi {
  return new B2NativeClient(options);
}

const isAbort = (signal: AbortSignal | undefined) => signal?.aborted === true;

class B2NativeClient implements B2NativeApi {
  private readonly authBase: string;
  private readonly fetchImpl: typeof fetch;
  private readonly userAgent: string;
  private readonly retry: ResolvedRetry;
  private readonly timeoutMs: number;
  private authPromise: Promise<AuthState> | undefined;
  private authState: AuthState | undefined;

  constructor(private readonly options: B2NativeClientOptions) {
    if (!options.applicationKeyId || !options.applicationKey) {
      throw new B2ConfigError('an application key id and an application key are required');
    }
    this.authBase = checkEndpoint(options.apiUrl ?? DEFAULT_B2_API_URL, 'B2_API_URL');
    // Called unbound: Workers refuse a global fetch called as a method of another object.
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.userAgent = options.userAgent ?? 'b2-mcp/dev';
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  // ── authorization ─────────────────────────────────────────────────────

  async authorize(options: { force?: boolean } & CallOptions = {}): Promise<B2AccountInfo> {
    if (options.force) this.dropAuth(this.authState);
    return (await this.ensureAuth(options.signal)).info;
  }

  private ensureAuth(signal?: AbortSignal): Promise<AuthState> {
    if (!this.authPromise) {
      const pending = this.withRetries('b2_authorize_account', true, signal, () => this.requestAuthorization(signal)).then(
        (state) => {
          if (this.authPromise === pending) this.authState = state;
          return state;
        },
        (error: unknown) => {
          if (this.authPromise === pending) this.authPromise = undefined;
          throw error;
        },
      );
      this.authPromise = pending;
    }
    return this.authPromise;
  }

  /** Forget the cached token, unless another caller already replaced it. */
  private dropAuth(state: AuthState | undefined): void {
    if (state === undefined || this.authState === state) {
      this.authPromise = undefined;
      this.authState = undefined;
    }
  }

  private async requestAuthorization(signal?: AbortSignal): Promise<AuthState> {
    const operation = 'b2_authorize_account';
    const basic = Buffer.from(`${this.options.applicationKeyId}:${this.options.applicationKey}`).toString('base64');
    const json = await this.exchangeJson(
      operation,
      `${this.authBase}/b2api/${B2_API_VERSION}/${operation}`,
      {
        method: 'GET',
        headers: { Authorization: `Basic ${basic}` },
      },
      signal,
    );
    return parseAuthorization(json, operation);
  }

  // ── transport ─────────────────────────────────────────────────────────

  private async withRetries<T>(
    operation: string,
    idempotent: boolean,
    signal: AbortSignal | undefined,
    attempt: () => Promise<T>,
  ): Promise<T> {
    const started = Date.now();
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        // An authorization failure inside a call already used its own retries.
        if (!(error instanceof B2Error) || error.operation !== operation || isAbort(signal)) throw error;
        if (!isRetryable(error, idempotent) || n >= this.retry.maxAttempts) throw error;
        const delayMs = error.retryAfterMs ?? backoffDelay(this.retry, n);
        if (Date.now() - started + delayMs > this.retry.budgetMs) throw error;
        this.options.onRetry?.({ operation, attempt: n, delayMs, status: error.status, code: error.code });
        await this.retry.sleep(delayMs);
        if (isAbort(signal)) throw signal!.reason;
      }
    }
  }

  /**
   * One HTTP exchange. Resolves with the response once headers arrived (`streaming`) or with the
   * body fully read; the timeout covers exactly that part.
   */
  private async exchange(
    operation: string,
    url: string,
    init: RequestInit,
    signal: AbortSignal | undefined,
    streaming: boolean,
  ): Promise<{ response: Response; text: string }> {
    if (signal?.aborted) throw signal.reason;
    const controller = new AbortController();
    const timeout = new Error('timeout');
    const timer = setTimeout(() => controller.abort(timeout), this.timeoutMs);
    const forward = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', forward, { once: true });
    try {
      const response = await this.fetchImpl(url, {
        ...init,
        headers: { 'User-Agent': this.userAgent, ...(init.headers as Record<string, string>) },
        signal: controller.signal,
      });
      const text = streaming && response.ok ? '' : await response.text();
      return { response, text };
    } catch (error) {
      if (isAbort(signal)) throw signal!.reason;
      if (controller.signal.reason === timeout) {
        throw new B2TransportError('request_timeout', `no response from B2 within ${this.timeoutMs} ms`, operation);
      }
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new B2TransportError('network_error', `could not reach ${new URL(url).host}${cause ? ` (${cause})` : ''}`, operation);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    }
  }

  private async exchangeJson(operation: string, url: string, init: RequestInit, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const { response, text } = await this.exchange(operation, url, init, signal, false);
    if (!response.ok) throw errorFromResponse(operation, response, text);
    const json = parseJsonObject(text);
    if (!json) throw invalidResponse(operation, response, 'is not a JSON object');
    return json;
  }

  private async call<T>(spec: JsonCall<T>, options: CallOptions = {}): Promise<T> {
    const { signal } = options;
    const once = async (state: AuthState) => {
      const base = spec.api === 'groups' ? (state.info.groupsApiUrl ?? state.info.apiUrl) : state.info.apiUrl;
      const json = await this.exchangeJson(
        spec.operation,
        `${base}/b2api/${B2_API_VERSION}/${spec.operation}`,
        {
          method: 'POST',
          headers: { Authorization: state.token, 'Content-Type': 'application/json' },
          body: JSON.stringify(spec.body(state.info)),
        },
        signal,
      );
      return spec.check(json);
    };
    return this.withRetries(spec.operation, spec.idempotent, signal, () => this.withFreshToken(signal, once));
  }

  /** Run `attempt` with the cached token; on an expired or bad token, re-authorize once and repeat. */
  private async withFreshToken<T>(signal: AbortSignal | undefined, attempt: (state: AuthState) => Promise<T>): Promise<T> {
    const state = await this.ensureAuth(signal);
    try {
      return await attempt(state);
    } catch (error) {
      if (
        !(error instanceof B2ApiError) ||
        error.status !== 401 ||
        (error.code !== 'expired_auth_token' && error.code !== 'bad_auth_token')
      ) {
        throw error;
      }
      this.dropAuth(state);
      return attempt(await this.ensureAuth(signal));
    }
  }

  // ── buckets ───────────────────────────────────────────────────────────

  listBuckets(request: B2ListBucketsRequest = {}, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_list_buckets',
        idempotent: true,
        body: (info) => ({ accountId: info.accountId, ...request }),
        check: (json) => ({ buckets: checkArray(json, 'buckets', 'b2_list_buckets', checkBucket) }),
      },
      options,
    );
  }

  createBucket(request: B2CreateBucketRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_create_bucket',
        idempotent: false,
        body: (info) => ({ accountId: info.accountId, ...request }),
        check: (json) => checkBucket(json, 'b2_create_bucket'),
      },
      options,
    );
  }

  updateBucket(request: B2UpdateBucketRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_update_bucket',
        // Replace semantics make a repeat harmless, except with a revision precondition.
        idempotent: request.ifRevisionIs === undefined,
        body: (info) => ({ accountId: info.accountId, ...request }),
        check: (json) => checkBucket(json, 'b2_update_bucket'),
      },
      options,
    );
  }

  deleteBucket(request: { bucketId: string }, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_delete_bucket',
        idempotent: false,
        body: (info) => ({ accountId: info.accountId, ...request }),
        check: (json) => checkBucket(json, 'b2_delete_bucket'),
      },
      options,
    );
  }

  getBucketNotificationRules(request: { bucketId: string }, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_get_bucket_notification_rules',
        idempotent: true,
        body: () => ({ ...request }),
        check: (json) => checkRules(json, 'b2_get_bucket_notification_rules'),
      },
      options,
    );
  }

  setBucketNotificationRules(request: B2SetNotificationRulesRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_set_bucket_notification_rules',
        // The call replaces every rule: repeating it leaves the same state.
        idempotent: true,
        body: () => ({ ...request }),
        check: (json) => checkRules(json, 'b2_set_bucket_notification_rules'),
      },
      options,
    );
  }

  // ── keys ──────────────────────────────────────────────────────────────

  listKeys(request: B2ListKeysRequest = {}, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_list_keys',
        idempotent: true,
        body: (info) => ({ accountId: info.accountId, ...request }),
        check: (json) => ({
          keys: checkArray(json, 'keys', 'b2_list_keys', checkKey),
          nextApplicationKeyId: nullableString(json, 'nextApplicationKeyId', 'b2_list_keys'),
        }),
      },
      options,
    );
  }

  createKey(request: B2CreateKeyRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_create_key',
        idempotent: false,
        body: (info) => ({ accountId: info.accountId, ...request }),
        check: (json) => {
          const key = checkKey(json, 'b2_create_key');
          requireString(json, 'applicationKey', 'b2_create_key');
          return key as B2CreatedKey;
        },
      },
      options,
    );
  }

  deleteKey(request: { applicationKeyId: string }, options?: CallOptions) {
    return this.call(
      { operation: 'b2_delete_key', idempotent: false, body: () => ({ ...request }), check: (json) => checkKey(json, 'b2_delete_key') },
      options,
    );
  }

  // ── files ─────────────────────────────────────────────────────────────

  listFileNames(request: B2ListFileNamesRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_list_file_names',
        idempotent: true,
        body: () => ({ ...request }),
        check: (json) => ({
          files: checkArray(json, 'files', 'b2_list_file_names', checkFile),
          nextFileName: nullableString(json, 'nextFileName', 'b2_list_file_names'),
        }),
      },
      options,
    );
  }

  listFileVersions(request: B2ListFileVersionsRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_list_file_versions',
        idempotent: true,
        body: () => ({ ...request }),
        check: (json) => ({
          files: checkArray(json, 'files', 'b2_list_file_versions', checkFile),
          nextFileName: nullableString(json, 'nextFileName', 'b2_list_file_versions'),
          nextFileId: nullableString(json, 'nextFileId', 'b2_list_file_versions'),
        }),
      },
      options,
    );
  }

  listUnfinishedLargeFiles(request: B2ListUnfinishedLargeFilesRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_list_unfinished_large_files',
        idempotent: true,
        body: () => ({ ...request }),
        check: (json) => ({
          files: checkArray(json, 'files', 'b2_list_unfinished_large_files', checkFile),
          nextFileId: nullableString(json, 'nextFileId', 'b2_list_unfinished_large_files'),
        }),
      },
      options,
    );
  }

  listParts(request: B2ListPartsRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_list_parts',
        idempotent: true,
        body: () => ({ ...request }),
        check: (json) => {
          const parts = checkArray(json, 'parts', 'b2_list_parts', (part, operation) => {
            if (typeof part.partNumber !== 'number' || typeof part.contentLength !== 'number')
              throw shapeError(operation, 'parts[]', 'a part');
            return part as unknown as B2Part;
          });
          const next = json.nextPartNumber;
          if (next !== null && next !== undefined && typeof next !== 'number')
            throw shapeError('b2_list_parts', 'nextPartNumber', 'a number or null');
          return { parts, nextPartNumber: (next as number | null | undefined) ?? null };
        },
      },
      options,
    );
  }

  updateFileLegalHold(request: B2UpdateFileLegalHoldRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_update_file_legal_hold',
        idempotent: true,
        body: () => ({ ...request }),
        check: (json) => {
          requireString(json, 'fileId', 'b2_update_file_legal_hold');
          return json as unknown as B2UpdateFileLegalHoldResponse;
        },
      },
      options,
    );
  }

  updateFileRetention(request: B2UpdateFileRetentionRequest, options?: CallOptions) {
    const { bypassGovernance, ...rest } = request;
    return this.call(
      {
        operation: 'b2_update_file_retention',
        idempotent: true,
        // Sent only when true (the contract forwards the flag only then).
        body: () => ({ ...rest, ...(bypassGovernance ? { bypassGovernance: true } : {}) }),
        check: (json) => {
          requireString(json, 'fileId', 'b2_update_file_retention');
          return json as unknown as B2UpdateFileRetentionResponse;
        },
      },
      options,
    );
  }

  deleteFileVersion(request: B2DeleteFileVersionRequest, options?: CallOptions) {
    const { bypassGovernance, ...rest } = request;
    return this.call(
      {
        operation: 'b2_delete_file_version',
        idempotent: false,
        body: () => ({ ...rest, ...(bypassGovernance ? { bypassGovernance: true } : {}) }),
        check: (json) => ({
          fileId: requireString(json, 'fileId', 'b2_delete_file_version'),
          fileName: requireString(json, 'fileName', 'b2_delete_file_version'),
        }),
      },
      options,
    );
  }

  downloadFileByName(request: B2DownloadRequest, options: CallOptions = {}): Promise<B2Download> {
    const operation = 'b2_download_file_by_name';
    const { signal } = options;
    const once = async (state: AuthState): Promise<B2Download> => {
      const path = request.fileName.split('/').map(encodeURIComponent).join('/');
      const url = `${state.info.downloadUrl}/file/${encodeURIComponent(request.bucketName)}/${path}`;
      const headers: Record<string, string> = { Authorization: state.token };
      if (request.range) headers.Range = `bytes=${request.range.first}-${request.range.last ?? ''}`;
      const { response, text } = await this.exchange(operation, url, { method: 'GET', headers }, signal, true);
      if (!response.ok) throw errorFromResponse(operation, response, text);
      if (!response.body) throw invalidResponse(operation, response, 'has no body');
      const h = response.headers;
      const fileInfo: Record<string, string> = {};
      h.forEach((value, name) => {
        if (name.startsWith('x-bz-info-')) fileInfo[name.slice('x-bz-info-'.length)] = safeDecode(value);
      });
      return {
        status: response.status === 206 ? 206 : 200,
        body: response.body,
        contentLength: Number(h.get('content-length') ?? -1),
        contentType: h.get('content-type') ?? 'application/octet-stream',
        fileId: h.get('x-bz-file-id'),
        fileName: safeDecode(h.get('x-bz-file-name') ?? request.fileName),
        contentSha1: h.get('x-bz-content-sha1'),
        uploadTimestamp: h.has('x-bz-upload-timestamp') ? Number(h.get('x-bz-upload-timestamp')) : null,
        fileInfo,
      };
    };
    return this.withRetries(operation, true, signal, () => this.withFreshToken(signal, once));
  }

  // ── Partner / Groups ──────────────────────────────────────────────────

  listGroups(request: B2ListGroupsRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_list_groups',
        idempotent: true,
        api: 'groups',
        body: () => ({ ...request }),
        check: (json) => {
          checkArray(json, 'groups', 'b2_list_groups', (g) => g);
          return { ...json, nextGroupId: json.nextGroupId == null ? null : String(json.nextGroupId) } as B2ListGroupsResponse;
        },
      },
      options,
    );
  }

  listGroupMembers(request: B2ListGroupMembersRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_list_group_members',
        idempotent: true,
        api: 'groups',
        body: () => ({ ...request }),
        check: (json) => {
          checkArray(json, 'groupMembers', 'b2_list_group_members', (m) => m);
          return json as unknown as B2ListGroupMembersResponse;
        },
      },
      options,
    );
  }

  ejectGroupMember(request: B2EjectGroupMemberRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_eject_group_member',
        idempotent: false,
        api: 'groups',
        body: () => ({ ...request }),
        check: (json) => {
          requireString(json, 'accountId', 'b2_eject_group_member');
          return json as unknown as B2GroupMember;
        },
      },
      options,
    );
  }

  createGroupMember(request: B2CreateGroupMemberRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_create_group_member',
        idempotent: false,
        api: 'groups',
        body: () => ({ ...request }),
        check: (json) => {
          requireString(json, 'applicationKeyId', 'b2_create_group_member');
          requireString(json, 'applicationKey', 'b2_create_group_member');
          return json as unknown as B2CreateGroupMemberResponse;
        },
      },
      options,
    );
  }

  reserveTrialCreateAccount(request: B2ReserveTrialRequest, options?: CallOptions) {
    return this.call(
      {
        operation: 'b2_reserve_trial_create_account',
        idempotent: false,
        api: 'groups',
        body: () => ({ ...request }),
        check: (json) => {
          requireString(json, 'accountId', 'b2_reserve_trial_create_account');
          requireString(json, 'applicationKey', 'b2_reserve_trial_create_account');
          return json as unknown as B2ReserveTrialResponse;
        },
      },
      options,
    );
  }
}

// ── response reading ────────────────────────────────────────────────────────

function requestIdOf(response: Response): string | undefined {
  return response.headers.get('x-bz-request-id') ?? undefined;
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function invalidResponse(operation: string, response: Response, what: string): B2InvalidResponseError {
  const type = response.headers.get('content-type');
  return new B2InvalidResponseError(
    response.status,
    `B2 returned a response that ${what} (HTTP ${response.status}${type ? `, ${type.split(';')[0]}` : ''})`,
    operation,
    requestIdOf(response),
  );
}

/** B2's `{status, code, message}` body as a B2ApiError; anything else as a B2InvalidResponseError. */
function errorFromResponse(operation: string, response: Response, text: string): B2Error {
  const json = parseJsonObject(text);
  const error =
    json && typeof json.code === 'string'
      ? new B2ApiError(response.status, json.code, typeof json.message === 'string' ? json.message : '', operation, requestIdOf(response))
      : invalidResponse(operation, response, 'is not a B2 error body');
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'), Date.now());
  if (retryAfter !== undefined) error.retryAfterMs = retryAfter;
  return error;
}

function shapeError(operation: string, field: string, expected: string): B2InvalidResponseError {
  return new B2InvalidResponseError(200, `B2 response field ${field} is missing or not ${expected}`, operation);
}

function requireString(json: Record<string, unknown>, field: string, operation: string): string {
  const value = json[field];
  if (typeof value !== 'string') throw shapeError(operation, field, 'a string');
  return value;
}

function nullableString(json: Record<string, unknown>, field: string, operation: string): string | null {
  const value = json[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw shapeError(operation, field, 'a string or null');
  return value;
}

function checkArray<T>(
  json: Record<string, unknown>,
  field: string,
  operation: string,
  item: (value: Record<string, unknown>, operation: string) => T,
): T[] {
  const value = json[field];
  if (!Array.isArray(value)) throw shapeError(operation, field, 'an array');
  return value.map((entry) => {
    if (!entry || typeof entry !== 'object') throw shapeError(operation, `${field}[]`, 'an object');
    return item(entry as Record<string, unknown>, operation);
  });
}

function checkBucket(json: Record<string, unknown>, operation: string): B2Bucket {
  requireString(json, 'bucketId', operation);
  requireString(json, 'bucketName', operation);
  return json as unknown as B2Bucket;
}

function checkKey(json: Record<string, unknown>, operation: string): B2Key {
  requireString(json, 'applicationKeyId', operation);
  return json as unknown as B2Key;
}

function checkFile(json: Record<string, unknown>, operation: string) {
  requireString(json, 'fileName', operation);
  return json as unknown as B2ListFileNamesResponse['files'][number];
}

function checkRules(json: Record<string, unknown>, operation: string): B2NotificationRulesResponse {
  checkArray(json, 'eventNotificationRules', operation, (r) => r);
  return json as unknown as B2NotificationRulesResponse;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function scopeFrom(storage: Record<string, unknown>): B2AllowedScope {
  const allowed = (storage.allowed && typeof storage.allowed === 'object' ? storage.allowed : storage) as Record<string, unknown>;
  let buckets: B2AllowedScope['buckets'] = null;
  if (Array.isArray(allowed.buckets)) {
    buckets = (allowed.buckets as Array<Record<string, unknown>>).map((b) => ({
      id: String(b.id),
      name: typeof b.name === 'string' ? b.name : null,
    }));
  } else if (typeof allowed.bucketId === 'string') {
    buckets = [{ id: allowed.bucketId, name: typeof allowed.bucketName === 'string' ? allowed.bucketName : null }];
  }
  return {
    buckets,
    capabilities: Array.isArray(allowed.capabilities) ? (allowed.capabilities as unknown[]).map(String) : [],
    namePrefix: typeof allowed.namePrefix === 'string' ? allowed.namePrefix : null,
  };
}

/** Read v4 (`apiInfo.storageApi.allowed.buckets`), v3 and v2 shaped authorize responses alike. */
function parseAuthorization(json: Record<string, unknown>, operation: string): AuthState {
  const token = requireString(json, 'authorizationToken', operation);
  const accountId = requireString(json, 'accountId', operation);
  const apiInfo = (json.apiInfo ?? {}) as Record<string, Record<string, unknown>>;
  const storage = apiInfo.storageApi ?? json;
  const groups = apiInfo.groupsApi;
  const endpoint = (field: string) => checkEndpoint(requireString(storage, field, operation), `authorize response ${field}`);
  const { authorizationToken: _token, ...response } = json;
  return {
    token,
    info: {
      accountId,
      apiUrl: endpoint('apiUrl'),
      downloadUrl: endpoint('downloadUrl'),
      s3ApiUrl: endpoint('s3ApiUrl'),
      groupsApiUrl: typeof groups?.groupsApiUrl === 'string' ? checkEndpoint(groups.groupsApiUrl, 'authorize response groupsApiUrl') : null,
      recommendedPartSize: Number(storage.recommendedPartSize ?? 100_000_000),
      absoluteMinimumPartSize: Number(storage.absoluteMinimumPartSize ?? 5_000_000),
      allowed: scopeFrom(storage),
      applicationKeyExpirationTimestamp:
        typeof json.applicationKeyExpirationTimestamp === 'number' ? json.applicationKeyExpirationTimestamp : null,
      response,
    },
  };
}
