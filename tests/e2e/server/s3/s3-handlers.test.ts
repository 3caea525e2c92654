/**
 * What only a direct handler call can show (the advertised schema stops these inputs over MCP),
 * and that the AWS SDK stays out of the process until an S3 call needs it.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../../../src/server/config.js';
import type { ToolContext } from '../../../../src/server/context.js';
import { createLogger } from '../../../../src/server/logger.js';
import { createS3Adapter } from '../../../../src/server/s3/adapter.js';
import { TOOL_CATALOG } from '../../../../src/server/tools/catalog.js';
import { ToolError } from '../../../../src/server/errors.js';
import type { ToolArgs } from '../../../../src/server/tools/schema.js';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');

function contextWith(capabilities: ReadonlySet<string> | null): ToolContext {
  const unreachable = () => {
    throw new Error('the handler must refuse before using a backend');
  };
  return {
    config: loadConfig({ B2_MCP_PROFILE: 'full', LOG_LEVEL: 'silent', B2_SECRET_SINK: 'off' }, 'stdio'),
    logger: createLogger({ level: 'silent', redact: (record) => record }),
    signal: new AbortController().signal,
    capabilities,
    b2: unreachable,
    partner: unreachable,
    s3: async () => unreachable(),
    protectedValues: () => [],
  };
}

async function refusal(tool: string, args: ToolArgs, capabilities: ReadonlySet<string> | null = null): Promise<ToolError> {
  const definition = TOOL_CATALOG.find((t) => t.name === tool)!;
  try {
    await definition.handler(args, contextWith(capabilities));
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error(`${tool} should have refused`);
}

describe('runtime guards behind the schema', () => {
  test('a read-only key cannot mint a PutObject URL, a write-only key cannot mint a GetObject URL', async () => {
    const put = await refusal(
      's3_get_presigned_url',
      { bucket: 'b', key: 'k', operation: 'PutObject' },
      new Set(['readFiles', 'listFiles']),
    );
    expect([put.status, put.code]).toEqual([403, 'missing_capability']);
    expect(put.message).toContain('writeFiles');
    const get = await refusal(
      's3_get_presigned_url',
      { bucket: 'b', key: 'k', operation: 'GetObject', versionId: 'v1' },
      new Set(['writeFiles']),
    );
    expect([get.status, get.code]).toEqual([403, 'missing_capability']);
    expect(get.message).toContain('readFiles');
  });

  test('bypassGovernance needs the capability', async () => {
    const error = await refusal(
      's3_delete_objects',
      { bucket: 'b', objects: [{ key: 'k' }], bypassGovernance: true },
      new Set(['deleteFiles']),
    );
    expect([error.status, error.code]).toEqual([403, 'missing_capability']);
  });

  test('contradictory or incomplete arguments get a clear 400 before any S3 call', async () => {
    const cases: Array<[string, ToolArgs, RegExp]> = [
      ['s3_put_object', { bucket: 'b', key: 'k', content: '', filePath: '/tmp/x' }, /not both/],
      ['s3_put_object', { bucket: 'b', key: 'k' }, /content .* or filePath/],
      [
        's3_copy_object',
        { sourceBucket: 'b', sourceKey: 'k', destinationBucket: 'b', destinationKey: 'j', metadata: { a: '1' } },
        /REPLACE/,
      ],
      [
        's3_complete_multipart_upload',
        {
          bucket: 'b',
          key: 'k',
          uploadId: 'u',
          parts: [
            { partNumber: 2, etag: 'x' },
            { partNumber: 1, etag: 'y' },
          ],
        },
        /ascending/,
      ],
      ['s3_upload_part_copy', { bucket: 'b', key: 'k', uploadId: 'u', partNumber: 1, copySource: 'no-slash' }, /sourceBucket\/sourceKey/],
      [
        's3_upload_part_copy',
        { bucket: 'b', key: 'k', uploadId: 'u', partNumber: 1, copySource: 'b/k', copySourceRange: 'bytes=9-2' },
        /ends before it starts/,
      ],
      ['s3_get_presigned_upload_part_url', { bucket: 'b', key: 'k', uploadId: 'u', partNumbers: [1, 1] }, /repeat/],
      ['s3_get_presigned_url', { bucket: 'b', key: 'k', operation: 'GetObject', contentType: 'text/plain' }, /PutObject URLs only/],
      ['s3_list_object_versions', { bucket: 'b', versionIdMarker: 'v' }, /keyMarker/],
      [
        's3_put_bucket_lifecycle',
        {
          bucket: 'b',
          rules: [
            { id: 'a', status: 'Enabled' },
            { id: 'a', status: 'Disabled' },
          ],
        },
        /unique/,
      ],
    ];
    for (const [tool, args, message] of cases) {
      const error = await refusal(tool, args);
      expect([error.status, error.code], tool).toEqual([400, 'invalid_arguments']);
      expect(error.message, tool).toMatch(message);
    }
  });
});

describe('the AWS SDK is loaded lazily', () => {
  function sourceFiles(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
    });
  }

  test('only the S3 adapter imports @aws-sdk, and only as types or with a dynamic import()', () => {
    const importers: string[] = [];
    for (const file of ['src', 'bin', 'scripts', 'bench'].flatMap((dir) => sourceFiles(join(ROOT, dir)))) {
      const text = readFileSync(file, 'utf8');
      const imports = text.match(/(?:from\s+|import\s*\(?\s*|require\(\s*)'@aws-sdk\/[^']+'/g) ?? [];
      if (imports.length === 0) continue;
      importers.push(relative(ROOT, file));
      for (const line of text.split('\n').filter((l) => /(from|import|require).*'@aws-sdk\//.test(l))) {
        expect(line, `${file}: ${line}`).toMatch(/^import type |import\('@aws-sdk\//);
      }
    }
    expect(importers).toEqual(['src/server/s3/adapter.ts']);
  });

  test('the tool catalog and a fresh adapter do not load it; the first S3 call does', () => {
    const dist = join(ROOT, 'dist', 'src', 'server');
    const script = `
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const sdkLoaded = () => Object.keys(require.cache).some((p) => p.includes('/@aws-sdk/'));
      await import(${JSON.stringify(join(dist, 'tools', 'catalog.js'))});
      const afterCatalog = sdkLoaded();
      const { createS3Adapter } = await import(${JSON.stringify(join(dist, 's3', 'adapter.js'))});
      const adapter = createS3Adapter({ endpoint: 'http://127.0.0.1:9', region: 'us-west-004', accessKeyId: 'id', secretAccessKey: 'secret' });
      const afterCreate = sdkLoaded();
      await adapter.presignGetObject({ bucket: 'b', key: 'k', expiresIn: 60 });
      console.log(JSON.stringify({ afterCatalog, afterCreate, afterCall: sdkLoaded() }));
    `;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    expect(JSON.parse(output.trim())).toEqual({ afterCatalog: false, afterCreate: false, afterCall: true });
  });
});

describe('integrity headers', () => {
  test("DeleteObjects and lifecycle requests carry Content-MD5 instead of the SDK's CRC32", async () => {
    const seen: Array<{ url: string; headers: IncomingHttpHeaders; body: Buffer }> = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
        const xml = req.url?.includes('delete') ? '<DeleteResult></DeleteResult>' : '';
        res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(xml.length) });
        res.end(xml);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const s3 = createS3Adapter({ endpoint, region: 'us-west-004', accessKeyId: 'id', secretAccessKey: 'secret' });
      await s3.deleteObjects({ bucket: 'b', objects: [{ key: 'k' }], quiet: true, bypassGovernance: false });
      await s3.putBucketLifecycle('b', [{ id: 'r', status: 'Enabled', abortIncompleteMultipartUpload: { daysAfterInitiation: 1 } }]);
      expect(seen).toHaveLength(2);
      for (const request of seen) {
        expect(request.headers['content-md5'], request.url).toBe(createHash('md5').update(request.body).digest('base64'));
        expect(
          Object.keys(request.headers).filter((h) => h.startsWith('x-amz-checksum-') || h === 'x-amz-sdk-checksum-algorithm'),
          request.url,
        ).toEqual([]);
      }
    } finally {
      server.close();
    }
  });
});
