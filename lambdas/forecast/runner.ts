import type { Logger } from '@aws-lambda-powertools/logger';
import type { PriceRegistry } from '../../core/pricing';
import type { Services } from '../shared/services';
import { loadOrganizations, simulateOrganization, storeForecast } from './tasks';

export interface ForecastRunnerDeps {
  services: Services;
  registry: () => Promise<PriceRegistry>;
  logger: Logger;
}

/** The Step Functions stand-in: calls the same three tasks in state-machine order. */
export function createForecastRunner(deps: ForecastRunnerDeps) {
  const runOrganization = async (orgId: string): Promise<void> => {
    const view = await simulateOrganization(deps.services, orgId);
    await storeForecast(deps.services, orgId, view);
  };
  return {
    runOrganization,
    runAll: async (): Promise<void> => {
      const { orgIds } = await loadOrganizations(deps.services);
      for (const orgId of orgIds) {
        try {
          await runOrganization(orgId);
        } catch (err) {
          // One organization's failure must not hold back the others (a Map state's tolerated failures).
          deps.logger.warn('forecast failed', { orgId, error: err as Error });
        }
      }
    },
  };
}
