import { ledgerExportFromEnvironment } from '../shared/otel/ledger-export-from-environment';
import {
  logger,
  metrics,
  priceRegistryFromEnvironment,
  servicesFromEnvironment,
} from '../shared/environment';
import { getInferenceProfileLookup } from '../shared/bedrock-profile-lookup';
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
  bedrockProfiles: getInferenceProfileLookup(),
  ...(exported ? { export: exported } : {}),
});
