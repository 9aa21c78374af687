import { formatZodIssues } from '../../../core/schemas';
import { tripsQuerySchema } from '../../../core/schemas/api';
import { httpErrors, json } from '../../shared/http';
import { flagViews } from '../views';
import type { Route } from './types';

export const listFlags: Route = {
  auth: 'person',
  handle: async ({ principal, services }) =>
    json(200, { flags: flagViews(await services.flags.listByOrg(principal.orgId, services.now())) }),
};

export const listTrips: Route = {
  auth: 'person',
  handle: async ({ event, principal, services }) => {
    const parsed = tripsQuerySchema.safeParse(event.queryStringParameters ?? {});
    if (!parsed.success) throw httpErrors.badRequest('invalid query', formatZodIssues(parsed.error));
    return json(200, { trips: await services.trips.recent(principal.orgId, parsed.data.limit) });
  },
};
