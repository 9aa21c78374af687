import {
  logger,
  metrics,
  priceRegistryFromEnvironment,
  servicesFromEnvironment,
} from '../shared/environment';
import { createGuardrailConsumer } from './handler';

/** AWS entry: Kinesis event source mapping with ReportBatchItemFailures. */
export const handler = createGuardrailConsumer({
  services: servicesFromEnvironment(),
  registry: priceRegistryFromEnvironment(),
  logger,
  metrics,
});
