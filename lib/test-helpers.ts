/**
 * Shared by the CDK tests (lib/*.test.ts): synthesize the app the way `bin/app.ts` does, with fixed
 * context; skip clearly while a handler entry another engineer owns is missing.
 *
 * Synthesizing costs seconds, so the templates of one configuration are synthesized once per test run
 * and shared between test files through a cache directory keyed by a hash of everything the templates
 * depend on (lib/, cdk.json, the shared definitions, which handler entries exist, the options).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import { entryExists, lambdaEntry, REPO_ROOT } from './function';
import { createSpendguardApp } from './spendguard-stack';

/** Every handler folder the app deploys. */
export const HANDLERS = [
  'ingest',
  'enforce',
  'api',
  'pricing-consumer',
  'guardrail-consumer',
  'forecast',
  'relay',
  'edge-guard',
  'price-refresh',
  'reconciliation',
] as const;

/** Handler folders without an entry exporting `handler` (lambdas/<name>/index.ts, or handler.ts). */
export function missingEntries(): string[] {
  return HANDLERS.filter((name) => !entryExists(name));
}

/**
 * `describe` when every handler entry exists, else `describe.skip` with a message naming the missing
 * entries (NodejsFunction cannot be synthesized without its entry file).
 */
export function describeWithHandlers(name: string, fn: () => void): void {
  const missing = missingEntries();
  if (missing.length === 0) {
    describe(name, fn);
    return;
  }
  const list = missing.map((m) => `lambdas/${m}`).join(', ');
  describe.skip(`${name} [SKIPPED: handler entries missing: ${list}]`, fn);
  console.warn(`${name}: skipped until these handler entries exist: ${list}`);
}

/** The context the tests synthesize with, over cdk.json's. */
export const TEST_CONTEXT = {
  account: '123456789012',
  region: 'eu-west-1',
  replicaRegions: ['us-east-1', 'eu-west-1', 'ap-northeast-1'],
  stackName: 'Spendguard',
  'aws:cdk:enable-path-metadata': true,
} as const;

/** A custom-domain configuration (certificates in us-east-1), for the TLS assertions. */
export const DOMAIN_CONTEXT = {
  proxyDomainName: 'proxy.spend.example.com',
  proxyCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
  dashboardDomainName: 'spend.example.com',
  dashboardCertificateArn:
    'arn:aws:acm:us-east-1:123456789012:certificate/66666666-7777-8888-9999-000000000000',
  minimumTlsVersion: 'TLSv1.2_2021',
} as const;

/**
 * The non-default configuration (lib/deploy-safety.test.ts, lib/api-waf.test.ts): raised timeouts and
 * concurrency, the proxy's WAF rule on, the API's WAF off, optional MFA, a later generation. Shared so
 * that both files read one synthesis.
 */
export const OPTIONS_CONTEXT = {
  originReadTimeoutSeconds: 180,
  originKeepaliveTimeoutSeconds: 90,
  relayReservedConcurrency: 250,
  proxyRateLimitPerIp: 2000,
  apiWaf: 'false',
  mfaRequired: 'false',
  resourceGeneration: 2,
} as const;

export interface SynthOptions {
  /** Context over cdk.json's and {@link TEST_CONTEXT}. */
  readonly context?: Record<string, unknown>;
  /** Stack patterns to bundle (`aws:cdk:bundling-stacks`). @default [] (no bundling: fast) */
  readonly bundleStacks?: string[];
}

export interface Synthesized {
  /** The main regional stack. */
  readonly template: Template;
  /** The us-east-1 stack EdgeFunction creates for the guard. */
  readonly edgeTemplate: Template;
  /** The cloud assembly directory (assets of bundled stacks included). */
  readonly outdir: string;
}

function cdkJsonContext(): Record<string, unknown> {
  return (
    JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
      context: Record<string, unknown>;
    }
  ).context;
}

function appContext(options: SynthOptions): Record<string, unknown> {
  return {
    ...cdkJsonContext(),
    ...TEST_CONTEXT,
    ...options.context,
    'aws:cdk:bundling-stacks': options.bundleStacks ?? [],
    // Reference file assets (the AWS CLI layer of BucketDeployment, 20+ MB) in place instead of copying.
    'aws:cdk:disable-asset-staging': true,
  };
}

/** Creates the app as bin/app.ts does (without synthesizing it). */
export function createTestApp(options: SynthOptions & { outdir?: string } = {}): { app: App; stack: Stack } {
  const app = new App({
    outdir: options.outdir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'spendguard-cdk-')),
    // CloudFormation's own template validation is slow; `cdk synth` (bin/app.ts) runs it.
    builtinCloudFormationValidation: false,
    context: appContext(options),
  });
  return { app, stack: createSpendguardApp(app) };
}

function filesUnder(dir: string, filter: (f: string) => boolean): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name), filter) : [path.join(dir, e.name)]))
    .filter(filter)
    .sort();
}

/** A hash of everything the synthesized templates depend on. */
function cacheKey(options: SynthOptions): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ context: appContext(options), node: process.version }));
  const sources = [
    ...filesUnder(path.join(REPO_ROOT, 'lib'), (f) => f.endsWith('.ts') && !f.endsWith('.test.ts')),
    ...filesUnder(path.join(REPO_ROOT, 'core', 'providers'), (f) => f.endsWith('.ts')),
    path.join(REPO_ROOT, 'lambdas', 'shared', 'table-definitions.ts'),
    // Write grants name partitions by their item keys (lib/api.ts, lib/edge.ts).
    path.join(REPO_ROOT, 'lambdas', 'shared', 'item-keys.ts'),
    path.join(REPO_ROOT, 'lambdas', 'shared', 'origin-check-mode.ts'),
    path.join(REPO_ROOT, 'lambdas', 'edge-guard', 'config.ts'),
    path.join(REPO_ROOT, 'lambdas', 'relay', 'headers.ts'),
    path.join(REPO_ROOT, 'node_modules', 'aws-cdk-lib', 'package.json'),
  ];
  for (const file of sources) hash.update(file).update(fs.existsSync(file) ? fs.readFileSync(file) : '');
  for (const name of HANDLERS) hash.update(`${name}=${lambdaEntry(name)}:${entryExists(name)}`);
  hash.update(`dist=${fs.existsSync(path.join(REPO_ROOT, 'dashboard', 'dist', 'index.html'))}`);
  return hash.digest('hex').slice(0, 24);
}

const CACHE_DIR = path.join(os.tmpdir(), 'spendguard-cdk-test-cache');

function loadTemplates(outdir: string): Synthesized {
  const read = (file: string) =>
    Template.fromJSON(JSON.parse(fs.readFileSync(path.join(outdir, file), 'utf8')));
  const stackName = String(TEST_CONTEXT.stackName);
  return {
    template: read(`${stackName}.template.json`),
    edgeTemplate: read(`${stackName}-edge.template.json`),
    outdir,
  };
}

/**
 * The templates of the app with `options`: synthesized once per distinct configuration and source
 * state, then read from the cache (call from `beforeAll`).
 */
export function synthSpendguard(options: SynthOptions = {}): Synthesized {
  const dir = path.join(CACHE_DIR, cacheKey(options));
  if (fs.existsSync(path.join(dir, 'manifest.json'))) return loadTemplates(dir);
  pruneCache();
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const outdir = fs.mkdtempSync(path.join(CACHE_DIR, 'building-'));
  const { app } = createTestApp({ ...options, outdir });
  app.synth();
  try {
    fs.renameSync(outdir, dir);
    return loadTemplates(dir);
  } catch {
    // Another test file finished the same synthesis first; both results are identical.
    return loadTemplates(outdir);
  }
}

/** Drops cache entries older than a day (earlier source states). */
function pruneCache(): void {
  if (!fs.existsSync(CACHE_DIR)) return;
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const entry of fs.readdirSync(CACHE_DIR)) {
    const full = path.join(CACHE_DIR, entry);
    try {
      if (fs.statSync(full).mtimeMs < dayAgo) fs.rmSync(full, { recursive: true, force: true });
    } catch {
      // another test file is pruning too
    }
  }
}

interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}

/**
 * The logical id of the resource at a construct path below the stack's `Spendguard` construct,
 * e.g. `Data/Flags` (a `/Resource` or `/Default` suffix is optional).
 */
export function idAt(template: Template, constructPath: string, stackName = 'Spendguard'): string {
  const resources = template.toJSON().Resources as Record<string, TemplateResource>;
  const base = `${stackName}/Spendguard/${constructPath}`;
  const wanted = [base, `${base}/Resource`, `${base}/Default`];
  const found = Object.entries(resources).find(([, r]) =>
    wanted.includes(String(r.Metadata?.['aws:cdk:path'])),
  );
  if (!found) throw new Error(`no resource at ${wanted[0]}`);
  return found[0];
}

/** The resource with a logical id. */
export function resource(template: Template, logicalId: string): TemplateResource {
  const r = (template.toJSON().Resources as Record<string, TemplateResource>)[logicalId];
  if (!r) throw new Error(`no resource ${logicalId}`);
  return r;
}

interface PolicyResource {
  readonly Properties: {
    readonly Roles?: Array<{ Ref: string }>;
    readonly PolicyDocument: {
      readonly Statement: Array<{ Effect: string; Action: string | string[]; Resource: unknown }>;
    };
  };
}

/** The logical id of the role a function assumes. */
export function roleOfFunction(template: Template, functionLogicalId: string): string {
  const props = resource(template, functionLogicalId).Properties as {
    Role: { 'Fn::GetAtt': [string, string] };
  };
  return props.Role['Fn::GetAtt'][0];
}

/**
 * Every `action resource` pair a role is allowed, resources flattened as cdk-nag prints them
 * (`<LogicalId.Arn>`, `<AWS::AccountId>`), sorted. Its own logs and X-Ray are left out unless `all`.
 */
export function permissionsOf(
  template: Template,
  roleLogicalId: string,
  options: { all?: boolean } = {},
): string[] {
  const policies = template.findResources('AWS::IAM::Policy') as Record<string, PolicyResource>;
  const pairs = new Set<string>();
  for (const policy of Object.values(policies)) {
    if (!policy.Properties.Roles?.some((r) => r.Ref === roleLogicalId)) continue;
    for (const statement of policy.Properties.PolicyDocument.Statement) {
      if (statement.Effect !== 'Allow') continue;
      const actions = Array.isArray(statement.Action) ? statement.Action : [statement.Action];
      const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
      for (const action of actions) {
        if (!options.all && (action.startsWith('xray:') || action.startsWith('logs:'))) continue;
        for (const r of resources) pairs.add(`${action} ${flattenCfnReference(r)}`);
      }
    }
  }
  return [...pairs].sort();
}

/** The permissions of the function at a construct path (see {@link idAt}, {@link permissionsOf}). */
export function functionPermissions(
  template: Template,
  functionPath: string,
  options: { all?: boolean } = {},
): string[] {
  return permissionsOf(template, roleOfFunction(template, idAt(template, functionPath)), options);
}
