import { z } from 'zod';
import { logger, servicesFromEnvironment } from '../shared/environment';
import { loadOrganizations, simulateOrganization, storeForecast } from './tasks';

const inputSchema = z.discriminatedUnion('task', [
  z.object({ task: z.literal('load') }),
  z.object({ task: z.literal('simulate'), orgId: z.string().min(1) }),
  z.object({ task: z.literal('store'), orgId: z.string().min(1), view: z.any() }),
]);

/**
 * AWS entry for the forecast state machine's three task states: `{task: 'load'}` → `{orgIds}`;
 * `{task: 'simulate', orgId}` → `{orgId, view}`; `{task: 'store', orgId, view}` → `{orgId, stored: true}`.
 */
export const handler = async (input: unknown) => {
  const services = servicesFromEnvironment();
  const task = inputSchema.parse(input);
  switch (task.task) {
    case 'load':
      return loadOrganizations(services);
    case 'simulate':
      return { orgId: task.orgId, view: await simulateOrganization(services, task.orgId) };
    case 'store':
      await storeForecast(services, task.orgId, task.view);
      logger.info('forecast stored', { orgId: task.orgId });
      return { orgId: task.orgId, stored: true };
  }
};
