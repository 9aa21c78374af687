import { ledgerExportFromEnvironment } from '../shared/otel/ledger-export-from-environment';
import {
  logger,
  metrics,
  priceRegistryFromEnvironment,
  servicesFromEnvironment,
} from '../shared/environment';
import { createGuardrailConsumer } from './handler';

const exported = ledgerExportFromEnvironment(process.env, {
  serviceName: 'spendguard-guardrail-consumer',
  warn: (message, error) => logger.warn(message, { error: error as Error }),
});

/** AWS entry: Kinesis event source mapping with ReportBatchItemFailures. */
export const handler = createGuardrailConsumer({
  services: servicesFromEnvironment(),
  registry: priceRegistryFromEnvironment(),
  logger,
  metrics,
  ...(exported ? { export: exported } : {}),
});
