import { RECONCILED_PROVIDERS, reconciliationView } from '../../../core/reconciliation';
import { isReconciliationSource, RECONCILIATION_SOURCES } from '../../../core/reconciliation/providers';
import { formatZodIssues } from '../../../core/schemas';
import {
  putAdminKeyCredentialRequestSchema,
  putBedrockReconciliationRequestSchema,
} from '../../../core/schemas/api/reconciliation';
import { recordChange } from '../../shared/audit';
import { deploymentRegion } from '../../shared/deployment-region';
import { httpErrors, json, parseJsonBody } from '../../shared/http';
import type { Services } from '../../shared/services';
import { BedrockAccountClaimedError } from '../../shared/stores/bedrock-reconciliation-store';
import type { Principal } from '../../shared/principal';
import type { Route } from './types';

async function latest(services: Services, orgId: string) {
  const record = await services.reconciliations.get(orgId);
  return record ? reconciliationView(record) : { providers: [], computedAt: null, window: null, errors: [] };
}

async function credentialsView(services: Services, orgId: string) {
  const [configured, bedrock] = await Promise.all([
    services.adminCredentials.configured(orgId).then((p) => new Set(p)),
    services.bedrockReconciliation.get(orgId),
  ]);
  return {
    providers: [
      ...RECONCILED_PROVIDERS.map((provider) => ({ provider, configured: configured.has(provider) })),
      bedrock === undefined
        ? { provider: 'bedrock' as const, configured: false }
        : {
            provider: 'bedrock' as const,
            configured: true,
            regions: bedrock.regions.length > 0 ? [...bedrock.regions] : [deploymentRegion()],
          },
    ],
  };
}

/**
 * Bedrock has no key: the organization claims the deployment account's Bedrock figures (one organization
 * per account, else each would count the others' spend as untracked) and names the regions to read.
 */
async function putBedrock(
  services: Services,
  principal: Principal,
  regions: readonly string[] | undefined,
): Promise<void> {
  const before = await services.bedrockReconciliation.get(principal.orgId);
  try {
    await services.bedrockReconciliation.put(principal.orgId, {
      account: services.awsAccountId,
      regions: regions ?? [],
    });
  } catch (err) {
    if (err instanceof BedrockAccountClaimedError) {
      throw httpErrors.conflict(
        `another organization already reconciles the Bedrock figures of this deployment's AWS account; it must remove its bedrock setting (DELETE /v1/reconciliation/credentials/bedrock) first`,
      );
    }
    throw err;
  }
  await recordChange(services, principal, {
    action: 'credentials.stored',
    target: 'bedrock',
    before: before === undefined ? { configured: false } : { configured: true, regions: before.regions },
    after: { configured: true, regions: regions ?? [] },
  });
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

/**
 * PUT /v1/reconciliation/credentials: store (or replace) one provider's admin credential, or Bedrock's
 * setting (`{ provider: 'bedrock', regions? }`; 409 when another organization claims the account).
 */
export const putReconciliationCredentials: Route = {
  auth: 'person',
  role: 'admin',
  handle: async ({ event, principal, services }) => {
    const body = parseJsonBody(event);
    // Dispatched on `provider` by hand (not the union): a bad admin-key body names every bad field.
    const isBedrock =
      typeof body === 'object' && body !== null && (body as { provider?: unknown }).provider === 'bedrock';
    const parsed = (
      isBedrock ? putBedrockReconciliationRequestSchema : putAdminKeyCredentialRequestSchema
    ).safeParse(body);
    // Problems name the field and the rule, never echo the value (it is a secret).
    if (!parsed.success) throw httpErrors.badRequest('invalid credential', formatZodIssues(parsed.error));
    if (parsed.data.provider === 'bedrock') {
      await putBedrock(services, principal, parsed.data.regions);
      return json(200, await credentialsView(services, principal.orgId));
    }
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
    if (!isReconciliationSource(provider)) {
      throw httpErrors.badRequest('invalid provider', [
        { path: 'provider', message: `expected one of ${RECONCILIATION_SOURCES.join(', ')}` },
      ]);
    }
    if (provider === 'bedrock') {
      const before = await services.bedrockReconciliation.get(principal.orgId);
      await services.bedrockReconciliation.delete(principal.orgId);
      await recordChange(services, principal, {
        action: 'credentials.deleted',
        target: 'bedrock',
        before: before === undefined ? { configured: false } : { configured: true, regions: before.regions },
        after: { configured: false },
      });
      return json(200, await credentialsView(services, principal.orgId));
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
