import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createApiHandler, ROUTES } from '../lambdas/api/handler';
import { createEnforceHandler } from '../lambdas/enforce/handler';
import { createForecastRunner } from '../lambdas/forecast/runner';
import { BackgroundForecastRuns } from '../lambdas/forecast/runs';
import { createGuardrailConsumer } from '../lambdas/guardrail-consumer/handler';
import { createIngestHandler } from '../lambdas/ingest/handler';
import { createPricingConsumer } from '../lambdas/pricing-consumer/handler';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { cloudWatchBedrockMetrics } from '../lambdas/reconciliation/bedrock-metrics-reader';
import { createReconciliationRunner, type ReconciliationSettings } from '../lambdas/reconciliation/runner';
import { getDefaultPriceRegistry, type PriceRegistry } from '../core/pricing';
import { WebhookNotifier } from '../lambdas/shared/notifier';
import { ledgerExportFromEnvironment } from '../lambdas/shared/otel/ledger-export-from-environment';
import { StaticSecret } from '../lambdas/shared/secrets';
import { createServices, type Services } from '../lambdas/shared/services';
import { LOCAL_RESOURCE_NAMES } from '../lambdas/shared/table-definitions';
import { GROUPS_CLAIM, type Role } from '../core/roles';
import {
  createFileCheckpointStore,
  createLocalAwsClients,
  createLocalIssuer,
  createMemoryCheckpointStore,
  LOCAL_DASHBOARD_TOKEN_TTL_SECONDS,
  provisionLocalResources,
  renewingIdToken,
  startHttpGateway,
  startKinesisPoller,
  startStandIns,
  type GatewayMethod,
  type GatewayRoute,
} from './runtime';
import { startMockBedrock, startMockProviders } from './mock-providers';
import { createLocalProxy } from './proxy';
import { lockDataDir, ownerOnlyDir } from './data-dir';
import { FileAdminCredentialStore, loadOrCreateSecrets } from './secrets-file';
import { seedLocalOrganization } from './seed';

/** Options of the local stack; every one has a flag and an environment variable in local/start.ts. */

/** The built dashboard (`local/dashboard-build.ts` builds it), served at `/` beside the API. */
const BUILT_DASHBOARD = resolve(__dirname, '..', 'dashboard', 'dist');
/** Paths that are the API's, never the dashboard's (an unknown one gets the API's JSON 404). */
const API_PREFIXES = ['/v1/', '/api/'];

/**
 * The local admin (`local-user`, the dashboard's person) owns the local organization from the start:
 * otherwise whoever called first would, the viewer token included. Recorded in the audit log as in AWS.
 */
async function claimLocalOwner(services: Services, orgId: string): Promise<void> {
  const at = new Date(services.now()).toISOString();
  const person = { sub: 'local-user', email: 'you@localhost' };
  const owner = await services.owners.claim(orgId, person, at);
  if (!owner.claimed) return;
  await services.audit.record(orgId, {
    action: 'owner.claimed',
    actor: { kind: 'person', ...person, role: 'admin' },
    target: null,
    before: null,
    after: person,
    at,
  });
}

export interface LocalStackOptions {
  /** Where dynalite, kinesalite, checkpoints and secrets persist. @default '.spendguard' */
  dataDir?: string;
  /** Keep nothing on disk. @default false */
  memory?: boolean;
  host?: string;
  /** API (and dashboard) port; 0 = any free port. @default 8787 */
  apiPort?: number;
  /** Proxy port; 0 = any free port. @default 8788 */
  proxyPort?: number;
  /** Start built-in fake providers and point the proxy at them. @default false */
  mockProviders?: boolean;
  /** Per-provider upstream base URLs for the proxy (e.g. `{ openai: 'http://127.0.0.1:9000' }`). */
  upstreams?: Record<string, string>;
  /** Built dashboard to serve at `/`. @default 'dashboard/dist' when it exists */
  dashboardDir?: string;
  /** Webhook that receives soft-cap warnings and trips (stand-in for the SNS topic). */
  notifyWebhookUrl?: string;
  /** How often the forecast runner recomputes every organization's forecast. @default 5 min */
  forecastIntervalMs?: number;
  /** How often every organization is reconciled against the providers' reports. @default 1 hour */
  reconciliationIntervalMs?: number;
  /** Reconciliation settings (window, untracked-spend alert threshold, page size). */
  reconciliation?: ReconciliationSettings;
  /** Progress lines while booting. */
  onStatus?: (line: string) => void;
  /** Clock for the whole stack (tests). */
  now?: () => number;
  /** Relay containers at most, each one call at a time (Lambda's reserved concurrency). @default 100 */
  relayConcurrency?: number;
}

/** What a running local stack tells its user (also written to `<dataDir>/local.json`). */
export interface LocalStackInfo {
  apiUrl: string;
  proxyUrl: string;
  dashboardUrl: string;
  orgId: string;
  apiKey: string;
  /** The admin's ID token (the dashboard's person). */
  idToken: string;
  /**
   * One ID token per role (core/roles), each a different person of the local organization in that
   * Cognito group: try what a member or a viewer may do with `Authorization: Bearer <token>`.
   */
  idTokens: Record<Role, string>;
  /**
   * Base URLs of the fake providers (`--mock-providers`): proxy upstreams and admin-report hosts;
   * `bedrock` is the fake Bedrock runtime, which also answers CloudWatch ListMetrics and GetMetricData.
   */
  mockProviderUrls?: { openai: string; anthropic: string; openrouter: string; bedrock?: string };
}

export interface LocalStack extends LocalStackInfo {
  services: Services;
  /** Waits until both consumers have processed everything on the stream. */
  drain(): Promise<void>;
  /** Recomputes the forecast of every organization now. */
  runForecasts(): Promise<void>;
  /** Reconciles one organization now (the route's runner); resolves to the stored record. */
  runReconciliation(
    orgId: string,
  ): ReturnType<ReturnType<typeof createReconciliationRunner>['runOrganization']>;
  /** Requests the fake providers have received (tests: "the provider saw no request"). */
  mockProviderRequests?: () => number;
  /**
   * Issues an ID token for a user of an organization (tests, the demo), in the Cognito group `role`
   * when given; without one the user is the organization's owner if first, else a viewer (core/roles).
   */
  issueIdToken(orgId: string, sub?: string, role?: Role): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Boots the whole product on one machine: dynalite and kinesalite in-process, the tables and stream from
 * the same definitions the CDK uses, the API through the same handlers behind an API Gateway stand-in, the
 * two Kinesis consumers behind pollers that honour `batchItemFailures`, the forecast runner, the proxy
 * (guard + relay), and the dashboard. Stopping closes the doors first (no new acknowledgements), then
 * drains the consumers, so nothing already acknowledged is lost.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const status = options.onStatus ?? (() => undefined);
  const dataDir = options.memory ? undefined : (options.dataDir ?? '.spendguard');
  const host = options.host ?? '127.0.0.1';
  if (dataDir) await ownerOnlyDir(dataDir);
  const releaseDataDir = dataDir ? lockDataDir(dataDir) : () => undefined;
  const storage = dataDir ? { dataDir } : { memory: true as const };

  status('starting dynalite and kinesalite');
  const standIns = await startStandIns({ ...storage, host });
  const clients = createLocalAwsClients(standIns);
  status('creating tables and stream');
  await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });

  const secrets = await loadOrCreateSecrets(dataDir ? join(dataDir, 'secrets.json') : undefined);
  const now = options.now ?? Date.now;
  const services = createServices({
    doc: clients.documentClient,
    kinesis: clients.kinesis,
    dataTable: LOCAL_RESOURCE_NAMES.dataTable,
    flagsTable: LOCAL_RESOURCE_NAMES.flagsTable,
    streamName: LOCAL_RESOURCE_NAMES.eventsStream,
    pepper: new StaticSecret(secrets.pepper),
    notifier: new WebhookNotifier(options.notifyWebhookUrl),
    adminCredentials: new FileAdminCredentialStore(
      dataDir ? join(dataDir, 'reconciliation-credentials.json') : undefined,
    ),
    now,
  });
  const logger = new Logger({
    serviceName: 'spendguard-local',
    logLevel: (process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN') as 'WARN',
  });
  const metrics = new Metrics({ namespace: 'Spendguard', serviceName: 'spendguard-local' });
  const registry = (): Promise<PriceRegistry> => Promise.resolve(getDefaultPriceRegistry());
  // Off unless an OTLP endpoint is set (OTEL_* variables, docs/opentelemetry.md); one export for both
  // consumers: calls from pricing, trips from guardrails.
  const exported = ledgerExportFromEnvironment(process.env, {
    serviceName: 'spendguard-local',
    warn: (message, error) => logger.warn(message, { error: error as Error }),
  });
  if (exported) status('exporting OpenTelemetry spans and metrics (OTEL_EXPORTER_OTLP_*)');
  const withExport = exported ? { export: exported } : {};

  status('starting the API');
  const gateway = await startHttpGateway({
    host,
    port: options.apiPort ?? 8787,
    ...(options.dashboardDir !== undefined || existsSync(BUILT_DASHBOARD)
      ? { static: { dir: options.dashboardDir ?? BUILT_DASHBOARD, excludePrefixes: API_PREFIXES } }
      : {}),
  });
  const apiUrl = gateway.url;
  const issuer = await createLocalIssuer({ ...storage, issuerUrl: `${apiUrl}/local-issuer` });
  gateway.addRawRoute(issuer.jwksRoute());
  const verifier = issuer.createVerifier();
  gateway.setJwtVerifier(verifier);
  const idTokens = { verify: (t: string) => verifier.verify(t) as Promise<Record<string, unknown>> };

  const mock = options.mockProviders ? await startMockProviders({ host, now }) : undefined;
  // The fake Bedrock runtime (Converse, ConverseStream; HTTP/1.1 and h2c) beside the other fake providers.
  const mockBedrock = options.mockProviders ? await startMockBedrock({ now }) : undefined;
  const mockUpstreams = { ...(mock?.baseUrls ?? {}), ...(mockBedrock ? { bedrock: mockBedrock.url } : {}) };
  const forecast = createForecastRunner({ services, registry, logger });
  // The providers' admin reports: the fake providers' when they run (they bill every call they serve).
  const adminUpstreams = { ...(mock?.baseUrls ?? {}), ...(options.upstreams ?? {}) };
  const reconciliation = createReconciliationRunner({
    services,
    logger,
    registry,
    // Bedrock's token metrics: the real CloudWatch client against the fake Bedrock's CloudWatch stand-in.
    ...(mockBedrock
      ? {
          bedrockMetrics: cloudWatchBedrockMetrics({
            clientFor: (region) =>
              new CloudWatchClient({
                region,
                endpoint: mockBedrock.url,
                credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
              }),
          }),
          deploymentRegion: 'us-east-1',
        }
      : {}),
    ...options.reconciliation,
    baseUrls: {
      ...(adminUpstreams.openai ? { openai: adminUpstreams.openai } : {}),
      ...(adminUpstreams.anthropic ? { anthropic: adminUpstreams.anthropic } : {}),
      ...(adminUpstreams.openrouter ? { openrouter: adminUpstreams.openrouter } : {}),
    },
  });
  // POST /v1/forecast/run answers 202 at once; the run goes on in the background (Step Functions in AWS).
  const forecastRuns = new BackgroundForecastRuns((orgId) => forecast.runOrganization(orgId), services.now);
  const ingest = createIngestHandler({ services, logger, metrics });
  const enforce = createEnforceHandler({ services, idTokens, logger, metrics });
  const api = createApiHandler({
    services,
    idTokens,
    registry,
    logger,
    runReconciliation: (orgId) => reconciliation.runOrganization(orgId),
    forecastRuns,
    version: 'local',
  });
  const routes: GatewayRoute[] = [
    { method: 'POST', path: '/api/ingest', auth: 'none', handler: ingest, functionName: 'ingest' },
    { method: 'POST', path: '/v1/events', auth: 'none', handler: ingest, functionName: 'ingest' },
    {
      method: 'POST',
      path: '/api/guardrails/enforce',
      auth: 'jwt',
      handler: enforce,
      functionName: 'enforce',
    },
    // As in AWS: what no route matches reaches the API function, which answers the API's JSON 404.
    { method: 'ANY', path: '$default', auth: 'none', handler: api, functionName: 'api' },
    ...Object.entries(ROUTES).map(([routeKey, route]): GatewayRoute => {
      const [method, path] = routeKey.split(' ') as [GatewayMethod, string];
      // As in AWS: the JWT authorizer guards the people-only routes; the others authenticate in the handler.
      return {
        method,
        path,
        auth: route.auth === 'person' ? 'jwt' : 'none',
        handler: api,
        functionName: 'api',
      };
    }),
  ];
  for (const r of routes) gateway.addRoute(r);

  status('starting the consumers');
  const checkpoints = (name: string) =>
    dataDir
      ? createFileCheckpointStore(join(dataDir, 'checkpoints', `${name}.json`))
      : createMemoryCheckpointStore();
  const pollers = await Promise.all(
    [
      {
        name: 'pricing-consumer',
        handler: createPricingConsumer({ services, registry, logger, metrics, ...withExport }),
      },
      {
        name: 'guardrail-consumer',
        handler: createGuardrailConsumer({ services, registry, logger, metrics, ...withExport }),
      },
    ].map(({ name, handler }) =>
      startKinesisPoller({
        kinesis: clients.kinesis,
        streamName: LOCAL_RESOURCE_NAMES.eventsStream,
        functionName: name,
        handler,
        checkpoints: checkpoints(name),
        onDeadLetter: (records, error) =>
          logger.error('records sent to the dead-letter queue', {
            consumer: name,
            count: records.length,
            error,
          }),
      }),
    ),
  );

  status('seeding the local organization');
  const previous = dataDir ? await readLocalInfo(join(dataDir, 'local.json')) : undefined;
  const seeded = await seedLocalOrganization(services, secrets.pepper, previous?.apiKey);
  // Hours, not days (15.8): renewed at every start and, while running, by config.json once half has passed.
  // The dashboard's person is the organization's admin (Cognito group `admin`).
  const dashboardToken = renewingIdToken(issuer, {
    sub: 'local-user',
    email: 'you@localhost',
    orgId: seeded.orgId,
    extraClaims: { [GROUPS_CLAIM]: ['admin'] },
  });
  const idToken = await dashboardToken.current();
  await claimLocalOwner(services, seeded.orgId);
  const roleToken = (role: Role) =>
    issuer.issueIdToken({
      sub: `local-${role}`,
      email: `${role}@localhost`,
      orgId: seeded.orgId,
      ttlSeconds: LOCAL_DASHBOARD_TOKEN_TTL_SECONDS,
      extraClaims: { [GROUPS_CLAIM]: [role] },
    });
  const roleTokens: Record<Role, string> = {
    admin: idToken,
    member: await roleToken('member'),
    viewer: await roleToken('viewer'),
  };

  status('starting the proxy');
  const proxy = await createLocalProxy({
    host,
    port: options.proxyPort ?? 8788,
    flags: services.flags,
    apiKeys: services.apiKeys,
    sink: services.sink,
    pepper: services.pepper,
    upstreams: { ...mockUpstreams, ...(options.upstreams ?? {}) },
    now,
    budgetLeases: services.budgetLeases,
    pricingRates: services.pricingRates,
    priceRegistry: registry,
    orgConfig: services.config,
    trips: services.trips,
    loopRuns: services.loopRuns,
    resumes: services.resumes,
    ...(options.relayConcurrency !== undefined ? { relayConcurrency: options.relayConcurrency } : {}),
  });
  const proxyUrl = proxy.url;
  const info: LocalStackInfo = {
    apiUrl,
    proxyUrl,
    dashboardUrl: `${apiUrl}/`,
    orgId: seeded.orgId,
    apiKey: seeded.apiKey,
    idToken,
    idTokens: roleTokens,
    ...(mock
      ? { mockProviderUrls: { ...mock.baseUrls, ...(mockBedrock ? { bedrock: mockBedrock.url } : {}) } }
      : {}),
  };
  gateway.addRawRoute({
    method: 'GET',
    path: '/config.json',
    // The gateway answers only loopback Host values (DNS rebinding), so no other site can read this.
    handler: async (_req, res) => {
      const current = await dashboardToken.current();
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ apiUrl, proxyUrl, auth: { mode: 'local', idToken: current } }));
    },
  });
  if (dataDir) await writeFile(join(dataDir, 'local.json'), JSON.stringify(info, null, 2), { mode: 0o600 });

  const forecastTimer = setInterval(
    () => {
      forecast.runAll().catch((err: unknown) => logger.warn('forecast run failed', { error: err as Error }));
    },
    options.forecastIntervalMs ?? 5 * 60_000,
  );
  forecastTimer.unref();
  const reconciliationTimer = setInterval(
    () => {
      reconciliation
        .runAll()
        .catch((err: unknown) => logger.warn('reconciliation run failed', { error: err as Error }));
    },
    options.reconciliationIntervalMs ?? 60 * 60_000,
  );
  reconciliationTimer.unref();

  const drain = async () => {
    await Promise.all(pollers.map((p) => p.drain()));
  };

  return {
    ...info,
    services,
    ...(mock ? { mockProviderRequests: () => mock.requests().length } : {}),
    runReconciliation: (orgId) => reconciliation.runOrganization(orgId),
    drain,
    runForecasts: () => forecast.runAll(),
    issueIdToken: (orgId, sub = `user-${orgId}`, role) =>
      issuer.issueIdToken({
        sub,
        email: `${sub}@localhost`,
        orgId,
        ttlSeconds: 3600,
        ...(role ? { extraClaims: { [GROUPS_CLAIM]: [role] } } : {}),
      }),
    stop: async () => {
      clearInterval(forecastTimer);
      clearInterval(reconciliationTimer);
      // Close the doors first (nothing new is acknowledged), then let in-flight relays put their events.
      await proxy.close();
      await gateway.close();
      await mock?.close();
      await mockBedrock?.close();
      await forecastRuns.settled();
      await drain();
      await Promise.all(pollers.map((p) => p.stop()));
      await exported?.shutdown();
      clients.destroy();
      await standIns.close();
      releaseDataDir();
    },
  };
}

async function readLocalInfo(path: string): Promise<Partial<LocalStackInfo> | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Partial<LocalStackInfo>;
  } catch {
    return undefined;
  }
}
