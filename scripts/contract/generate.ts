import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  CONTRACT_ARTIFACT_PATH,
  PROFILES_DOC_PATH,
  PROMPT_FIXTURES_DIR,
  TOOL_FIXTURES_DIR,
  type ContractArtifact,
  type ContractProfile,
  type NamingPolicy,
  type PromptContractProfile,
} from '../../src/contract/artifact.js';
import {
  APPROVED_CACHE_HINT,
  BACKING_CATEGORIES,
  BACKING_CATEGORY_NAMES,
  CONTRACT_ISSUE,
  CONTRACT_VERSION,
  ERAS,
  MODERN_PROTOCOL_VERSION,
  NAMING_POLICY,
  PROFILE_NAMES,
  PROMPT_CONTRACT_ISSUE,
  type BackingCategory,
  type ProfileName,
} from '../../src/contract/constants.js';
import { buildToolFixture, serializeFixture, toolFixtureFileName, type ToolFixture } from '../../src/contract/fixture.js';
import { buildPromptFixture, type PromptFixture } from '../../src/contract/prompt-fixture.js';
import { renderProfilesDoc } from '../../src/contract/profiles-doc.js';
import { packageRoot } from '../../src/server/package-info.js';
import { promptArgsSchema } from '../../src/server/prompts/wire.js';
import { PROFILES } from '../../src/server/profiles.js';
import { createRuntime } from '../../src/server/start.js';
import { TOOL_CATALOG } from '../../src/server/tools/catalog.js';
import { serveOverHttp } from '../../src/server/transports/http.js';
import { loadHttpSettings } from '../../src/server/transports/http-settings.js';
import { collectTools } from './collect.js';
import { META_SCHEMA_VALIDATOR_PATH, metaSchemaValidatorSource } from './meta-schema.js';
import { withConfigTable } from './readme.js';

/** Versions of the packages that produce and read the contract, as resolved in node_modules. */
function sdkVersions(): Record<string, string> {
  const version = (name: string): string =>
    (JSON.parse(readFileSync(join(packageRoot(), 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  return {
    '@aws-sdk/client-s3': version('@aws-sdk/client-s3'),
    '@modelcontextprotocol/client': version('@modelcontextprotocol/client'),
    '@modelcontextprotocol/server': version('@modelcontextprotocol/server'),
    // @backblaze-labs/b2-sdk is not available; the native backing is this repository's own client.
    'native-b2-client': 'b2-mcp src/server/b2 (in-repo)',
  };
}

/** Serves one pinned profile over HTTP (secret sink off, as fixtures require) and collects both eras. */
async function fixturesFor(profile: ProfileName, sdk: Record<string, string>): Promise<ToolFixture[]> {
  const runtime = await createRuntime({ B2_MCP_PROFILE: profile, B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent' }, 'http');
  // The server's own (absent) key: a pinned profile needs none, and the client sends no credential headers.
  const { server, drain } = await serveOverHttp(runtime, {
    port: 0,
    host: '127.0.0.1',
    settings: loadHttpSettings({ B2_HTTP_CREDENTIAL_MODE: 'server' }),
  });
  try {
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    const fixtures: ToolFixture[] = [];
    for (const era of ERAS) {
      const collected = await collectTools(url, era);
      fixtures.push(
        buildToolFixture({
          profile,
          era,
          protocolVersion: collected.protocolVersion,
          transport: 'streamable-http',
          sdk,
          capabilities: PROFILES[profile].capabilities ? [...PROFILES[profile].capabilities!] : null,
          tools: collected.tools,
          instructions: collected.instructions,
          serverCapabilities: collected.serverCapabilities,
          modern: collected.modern,
        }),
      );
    }
    return fixtures;
  } finally {
    await drain();
  }
}

/** Prompt fixtures come from the server's own session for the profile, prompts switched on. */
async function promptFixtureFor(profile: ProfileName, sdk: Record<string, string>): Promise<PromptFixture> {
  const runtime = await createRuntime(
    { B2_MCP_PROFILE: profile, B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent', B2_ENABLE_MCP_PROMPTS: 'true' },
    'http',
  );
  const { prompts } = await runtime.sessionFor();
  return buildPromptFixture({
    profile,
    sdk,
    capabilities: PROFILES[profile].capabilities ? [...PROFILES[profile].capabilities!] : null,
    prompts: prompts.map((p) => ({ ...p, argsSchema: promptArgsSchema(p) })),
  });
}

function backingOf(): Record<string, BackingCategory> {
  return Object.fromEntries(TOOL_CATALOG.map((tool) => [tool.name, tool.backing]));
}

/** The published naming policy; the allowed verbs are the ones the registered (not grandfathered) names use. */
function namingPolicy(): NamingPolicy {
  const grandfathered = new Set<string>(NAMING_POLICY.grandfathered);
  const verbs = new Set(TOOL_CATALOG.filter((tool) => !grandfathered.has(tool.name)).map((tool) => tool.name.split('_')[1]!));
  return {
    prefixes: { ...NAMING_POLICY.prefixes },
    verbs: [...verbs].sort(),
    grandfathered: [...grandfathered],
    presign: { ...NAMING_POLICY.presign },
    renames: NAMING_POLICY.renames.map((rename) => ({ ...rename })),
  };
}

function artifactFrom(
  modern: Map<ProfileName, ToolFixture>,
  promptFixtures: Map<ProfileName, PromptFixture>,
  sdk: Record<string, string>,
): ContractArtifact {
  const toolBacking = backingOf();
  const profiles = {} as Record<ProfileName, ContractProfile>;
  for (const profile of PROFILE_NAMES) {
    const fixture = modern.get(profile)!;
    const backingCounts = Object.fromEntries(BACKING_CATEGORY_NAMES.map((c) => [c, 0])) as Record<BackingCategory, number>;
    for (const name of fixture.names) backingCounts[toolBacking[name]!] += 1;
    profiles[profile] = {
      description: PROFILES[profile].description,
      capabilities: fixture.capabilities,
      counts: fixture.counts,
      backingCounts,
      names: fixture.names,
      requiredFields: fixture.requiredFields,
      confirmTools: fixture.confirmTools,
      hash: fixture.hash,
      fixtures: {
        modern: `${TOOL_FIXTURES_DIR}/${toolFixtureFileName(profile, 'modern')}`,
        legacy: `${TOOL_FIXTURES_DIR}/${toolFixtureFileName(profile, 'legacy')}`,
      },
    };
  }
  return {
    contractVersion: CONTRACT_VERSION,
    issue: CONTRACT_ISSUE,
    mcpRevision: MODERN_PROTOCOL_VERSION,
    approvedCacheHint: { ...APPROVED_CACHE_HINT },
    sdk,
    backingCategories: BACKING_CATEGORIES,
    toolBacking,
    profiles,
    naming: namingPolicy(),
    promptIssue: PROMPT_CONTRACT_ISSUE,
    promptProfiles: Object.fromEntries(
      PROFILE_NAMES.map((profile): [ProfileName, PromptContractProfile] => {
        const f = promptFixtures.get(profile)!;
        return [
          profile,
          {
            description: PROFILES[profile].description,
            capabilities: f.capabilities,
            counts: f.counts,
            names: f.names,
            requiredTools: f.requiredTools,
            requiredCapabilities: f.requiredCapabilities,
            hash: f.hash,
            fixture: `${PROMPT_FIXTURES_DIR}/${profile}.json`,
          },
        ];
      }),
    ) as Record<ProfileName, PromptContractProfile>,
  };
}

/** Every generated contract file, keyed by its path relative to the package root. */
export async function generateContractFiles(): Promise<Map<string, string>> {
  const sdk = sdkVersions();
  const files = new Map<string, string>();
  const modern = new Map<ProfileName, ToolFixture>();
  for (const profile of PROFILE_NAMES) {
    for (const fixture of await fixturesFor(profile, sdk)) {
      files.set(`${TOOL_FIXTURES_DIR}/${toolFixtureFileName(profile, fixture.era)}`, serializeFixture(fixture));
      if (fixture.era === 'modern') modern.set(profile, fixture);
    }
  }
  const promptFixtures = new Map<ProfileName, PromptFixture>();
  for (const profile of PROFILE_NAMES) {
    const fixture = await promptFixtureFor(profile, sdk);
    promptFixtures.set(profile, fixture);
    files.set(`${PROMPT_FIXTURES_DIR}/${profile}.json`, serializeFixture(fixture));
  }
  const artifact = artifactFrom(modern, promptFixtures, sdk);
  files.set(CONTRACT_ARTIFACT_PATH, serializeFixture(artifact));
  files.set(PROFILES_DOC_PATH, renderProfilesDoc(artifact));
  files.set('README.md', withConfigTable(readFileSync(join(packageRoot(), 'README.md'), 'utf8')));
  files.set(META_SCHEMA_VALIDATOR_PATH, metaSchemaValidatorSource());
  return files;
}
