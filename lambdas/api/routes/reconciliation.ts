import { RECONCILED_PROVIDERS, reconciliationView } from '../../../core/reconciliation';
import { formatZodIssues } from '../../../core/schemas';
import { putReconciliationCredentialRequestSchema } from '../../../core/schemas/api';
import { createReconciliationRunner } from '../../reconciliation/runner';
import { httpErrors, json, parseJsonBody } from '../../shared/http';
import type { Services } from '../../shared/services';
import type { Route } from './types';

async function latest(services: Services, orgId: string) {
  const record = await services.reconciliations.get(orgId);
  return record ? reconciliationView(record) : { providers: [], computedAt: null, window: null, errors: [] };
}

async function credentialsView(services: Services, orgId: string) {
  const configured = new Set(await services.adminCredentials.configured(orgId));
  return {
    providers: RECONCILED_PROVIDERS.map((provider) => ({ provider, configured: configured.has(provider) })),
  };
}

/** GET /v1/reconciliation: the latest reconciliation against the providers' own reports. */
export const getReconciliation: Route = {
  auth: 'person',
  handle: async ({ principal, services }) => json(200, await latest(services, principal.orgId)),
};

/** POST /v1/reconciliation/run: reconcile now (reads the providers' reports), then answer as GET. */
export const runReconciliation: Route = {
  auth: 'person',
  handle: async ({ principal, services, logger }, deps) => {
    const run =
      deps.runReconciliation ??
      ((orgId: string) => createReconciliationRunner({ services, logger }).runOrganization(orgId));
    await run(principal.orgId);
    return json(200, await latest(services, principal.orgId));
  },
};

/** GET /v1/reconciliation/credentials: which providers have an admin credential stored (never the key). */
export const getReconciliationCredentials: Route = {
  auth: 'person',
  handle: async ({ principal, services }) => json(200, await credentialsView(services, principal.orgId)),
};

/** PUT /v1/reconciliation/credentials: store (or replace) one provider's admin credential. */
export const putReconciliationCredentials: Route = {
  auth: 'person',
  handle: async ({ event, principal, services }) => {
    const parsed = putReconciliationCredentialRequestSchema.safeParse(parseJsonBody(event));
    // Problems name the field and the rule, never echo the value (it is a secret).
    if (!parsed.success) throw httpErrors.badRequest('invalid credential', formatZodIssues(parsed.error));
    await services.adminCredentials.put(principal.orgId, parsed.data.provider, parsed.data.adminKey);
    return json(200, await credentialsView(services, principal.orgId));
  },
};
