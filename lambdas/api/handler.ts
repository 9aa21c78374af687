import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { KeyScope } from '../../core/keys/scopes';
import { requireRole } from '../shared/audit';
import { httpErrors, json } from '../shared/http';
import { httpErrorHandler } from '../shared/middleware/http-error-handler';
import { type Principal, requirePrincipal } from '../shared/principal';
import { getBudget, putBudget } from './routes/budget';
import { releaseBudgetLease, correctSettledSpend, takeBudgetLease } from './routes/budget-lease';
import { listFlags, listTrips } from './routes/flags';
import { getForecast, getForecastRun, runForecast } from './routes/forecast';
import { getHealth } from './routes/health';
import { createKey, listKeys, revokeKey } from './routes/keys';
import { getLedger } from './routes/ledger';
import { getAudit, putAuditSettings } from './routes/audit';
import {
  deleteReconciliationCredentials,
  getReconciliation,
  getReconciliationCredentials,
  putReconciliationCredentials,
  runReconciliation,
} from './routes/reconciliation';
import { listSessions } from './routes/sessions';
import { getPricingRates, putPricingRates } from './routes/pricing-rates';
import { getSpend } from './routes/spend';
import { openApiDocument } from './openapi';
import type { ApiDeps, Route } from './routes/types';

/** The v1 routes (docs/api.md), keyed by API Gateway route key. */
export const ROUTES: Readonly<Record<string, Route>> = {
  'GET /v1/health': getHealth,
  // Generated from the schemas (./openapi, which lists these routes: called at request time, not at load).
  'GET /v1/openapi.json': {
    auth: 'public',
    handle: async (_ctx, deps) => json(200, openApiDocument(deps.version, ROUTES)),
  },
  'GET /v1/ledger': getLedger,
  'GET /v1/spend': getSpend,
  'GET /v1/forecast': getForecast,
  'POST /v1/forecast/run': runForecast,
  'GET /v1/forecast/runs/{runId}': getForecastRun,
  'GET /v1/budget': getBudget,
  'PUT /v1/budget': putBudget,
  // Leases belong to running programs (routes/budget-lease.ts refuses a person with 403).
  'POST /v1/budget/lease': takeBudgetLease,
  'POST /v1/budget/lease/release': releaseBudgetLease,
  'POST /v1/budget/settled/correct': correctSettledSpend,
  'GET /v1/keys': listKeys,
  'POST /v1/keys': createKey,
  'DELETE /v1/keys/{publicId}': revokeKey,
  'GET /v1/flags': listFlags,
  'GET /v1/guardrails/trips': listTrips,
  'GET /v1/reconciliation': getReconciliation,
  'POST /v1/reconciliation/run': runReconciliation,
  'GET /v1/reconciliation/credentials': getReconciliationCredentials,
  'PUT /v1/reconciliation/credentials': putReconciliationCredentials,
  'DELETE /v1/reconciliation/credentials/{provider}': deleteReconciliationCredentials,
  'GET /v1/sessions': listSessions,
  'GET /v1/pricing/rates': getPricingRates,
  'PUT /v1/pricing/rates': putPricingRates,
  'GET /v1/audit': getAudit,
  'PUT /v1/audit/settings': putAuditSettings,
};

const PUBLIC: Principal = { kind: 'program', orgId: '', keyId: '', scopes: [] };
/** What a key needs on an `any` route that names nothing else: API-key access to the v1 API is reading. */
const READ: readonly KeyScope[] = ['read'];

/**
 * The v1 API: one function behind every /v1 route. Each route declares who may call it; the principal's
 * organization scopes every store call, so no route can reach another organization's data.
 */
export function createApiHandler(deps: ApiDeps) {
  const handle = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const route = ROUTES[event.routeKey];
    if (!route) {
      // The `$default` route: a path or method the API does not have.
      throw httpErrors.notFound(`no route ${event.requestContext.http.method} ${event.rawPath}`);
    }
    const principal =
      route.auth === 'public'
        ? PUBLIC
        : await requirePrincipal(
            event,
            deps.services,
            deps.idTokens,
            route.auth === 'any' ? (route.keyScopes ?? READ) : null,
            route.programsOnly === true,
          );
    if (route.auth !== 'public') {
      await requireRole(deps.services, principal, route.role ?? 'viewer', event.routeKey);
    }
    return route.handle(
      { event, principal, services: deps.services, registry: deps.registry, logger: deps.logger },
      deps,
    );
  };
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(handle).use(
    httpErrorHandler(deps.logger),
  );
}
