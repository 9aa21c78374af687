import { Logger } from '@aws-lambda-powertools/logger';
import type { ForecastRuns } from '../lambdas/forecast/runs';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { randomBytes } from 'node:crypto';
import { generateApiKey, hashApiKey } from '../core/keys';
import { getDefaultPriceRegistry } from '../core/pricing';
import type { Notification, Notifier } from '../lambdas/shared/notifier';
import { StaticSecret } from '../lambdas/shared/secrets';
import { createServices, type Services } from '../lambdas/shared/services';
import { LOCAL_RESOURCE_NAMES } from '../lambdas/shared/table-definitions';
import {
  createLocalAwsClients,
  provisionLocalResources,
  startStandIns,
  type StandIns,
} from '../local/runtime';

/** Real stores on in-process dynalite and kinesalite, for integration tests of handlers and consumers. */
export interface BackendHarness {
  services: Services;
  pepper: string;
  notifications: Notification[];
  logger: Logger;
  metrics: Metrics;
  registry: () => Promise<ReturnType<typeof getDefaultPriceRegistry>>;
  /** Creates an organization's API key; returns the raw key. */
  createKey(orgId: string, name?: string): Promise<{ apiKey: string; publicId: string; prefix: string }>;
  setNow(ms: number): void;
  close(): Promise<void>;
}

export async function startBackendHarness(): Promise<BackendHarness> {
  const standIns: StandIns = await startStandIns({ memory: true });
  const clients = createLocalAwsClients(standIns);
  await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });
  const pepper = randomBytes(32).toString('base64url');
  const notifications: Notification[] = [];
  const notifier: Notifier = { notify: async (n) => void notifications.push(n) };
  let now = Date.parse('2026-11-22T10:00:00.000Z');
  const services = createServices({
    doc: clients.documentClient,
    kinesis: clients.kinesis,
    dataTable: LOCAL_RESOURCE_NAMES.dataTable,
    flagsTable: LOCAL_RESOURCE_NAMES.flagsTable,
    streamName: LOCAL_RESOURCE_NAMES.eventsStream,
    pepper: new StaticSecret(pepper),
    notifier,
    now: () => now,
  });
  const registry = getDefaultPriceRegistry();
  return {
    services,
    pepper,
    notifications,
    logger: new Logger({ logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'test' }),
    registry: async () => registry,
    createKey: async (orgId, name = 'test') => {
      const key = generateApiKey((n) => randomBytes(n));
      await services.orgs.ensure(orgId, new Date(now).toISOString());
      await services.keys.create({
        publicId: key.publicId,
        orgId,
        prefix: key.prefix,
        hash: hashApiKey(key.apiKey, pepper),
        name,
        createdAt: new Date(now).toISOString(),
        revokedAt: null,
      });
      return key;
    },
    setNow: (ms) => {
      now = ms;
    },
    close: async () => {
      clients.destroy();
      await standIns.close();
    },
  };
}

/** `ApiDeps.forecastRuns` for API tests that never start a forecast run. */
export const UNUSED_FORECAST_RUNS: ForecastRuns = {
  start: async () => Promise.reject(new Error('forecast runs are not used in this test')),
  get: async () => undefined,
};
