import { RECONCILED_PROVIDERS, reconciliationView } from '../../../core/reconciliation';
import { isReconciledProvider } from '../../../core/reconciliation/providers';
import { formatZodIssues } from '../../../core/schemas';
import { putReconciliationCredentialRequestSchema } from '../../../core/schemas/api';
import { recordChange } from '../../shared/audit';
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

/**
 * POST /v1/reconciliation/run: reconcile now, then answer as GET. The run happens in the reconciliation
 * function (invoked; in-process locally), which alone may read the stored credentials: the API function
 * can store, describe and delete them but never read one (issue 21).
 */
export const runReconciliation: Route = {
  auth: 'person',
  role: 'member',
  handle: async ({ principal, services }, deps) => {
    if (!deps.runReconciliation) {
      throw httpErrors.unavailable('on-demand reconciliation is not configured in this deployment', 3600);
    }
    await deps.runReconciliation(principal.orgId);
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
  role: 'admin',
  handle: async ({ event, principal, services }) => {
    const parsed = putReconciliationCredentialRequestSchema.safeParse(parseJsonBody(event));
    // Problems name the field and the rule, never echo the value (it is a secret).
    if (!parsed.success) throw httpErrors.badRequest('invalid credential', formatZodIssues(parsed.error));
    const { provider } = parsed.data;
    const before = (await services.adminCredentials.configured(principal.orgId)).includes(provider);
    await services.adminCredentials.put(principal.orgId, provider, parsed.data.adminKey);
    // Whether one is stored, never the key.
    await recordChange(services, principal, {
      action: 'credentials.stored',
      target: provider,
      before: { configured: before },
      after: { configured: true },
    });
    return json(200, await credentialsView(services, principal.orgId));
  },
};

/**
 * DELETE /v1/reconciliation/credentials/{provider}: removes one provider's stored admin credential
 * (idempotent: deleting none answers the same view). Afterwards GET reads `configured: false`.
 */
export const deleteReconciliationCredentials: Route = {
  auth: 'person',
  role: 'admin',
  handle: async ({ event, principal, services }) => {
    const provider = event.pathParameters?.provider ?? '';
    if (!isReconciledProvider(provider)) {
      throw httpErrors.badRequest('invalid provider', [
        { path: 'provider', message: `expected one of ${RECONCILED_PROVIDERS.join(', ')}` },
      ]);
    }
    const before = (await services.adminCredentials.configured(principal.orgId)).includes(provider);
    await services.adminCredentials.delete(principal.orgId, provider);
    await recordChange(services, principal, {
      action: 'credentials.deleted',
      target: provider,
      before: { configured: before },
      after: { configured: false },
    });
    return json(200, await credentialsView(services, principal.orgId));
  },
};
