import {
  logger,
  metrics,
  priceRegistryFromEnvironment,
  servicesFromEnvironment,
} from '../shared/environment';
import { getInferenceProfileLookup } from '../shared/bedrock-profile-lookup';
import { createGuardrailConsumer } from './handler';

/** AWS entry: Kinesis event source mapping with ReportBatchItemFailures. */
export const handler = createGuardrailConsumer({
  services: servicesFromEnvironment(),
  registry: priceRegistryFromEnvironment(),
  logger,
  metrics,
  bedrockProfiles: getInferenceProfileLookup(),
});
