import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Principal } from '../../shared/principal';
import type { ForecastRuns } from '../../forecast/runs';
import type { IdTokenVerifier, Services } from '../../shared/services';
import type { PriceRegistry } from '../../../core/pricing';
import type { KeyScope } from '../../../core/keys/scopes';
import type { Role } from '../../../core/roles';

/** What every v1 route gets: the request, its verified principal, and the services. */
export interface RouteContext {
  event: APIGatewayProxyEventV2;
  principal: Principal;
  services: Services;
  registry: () => Promise<PriceRegistry>;
  logger: Logger;
}

export interface ApiDeps {
  services: Services;
  idTokens: IdTokenVerifier;
  registry: () => Promise<PriceRegistry>;
  logger: Logger;
  /** Starts and reports on-demand forecast runs (POST /v1/forecast/run, GET /v1/forecast/runs/{runId}). */
  forecastRuns: ForecastRuns;
  /**
   * Reconciles one organization now (POST /v1/reconciliation/run).
   * @default a runner on `services` against the providers' public APIs
   */
  runReconciliation?: (orgId: string) => Promise<unknown>;
  version: string;
}

/**
 * One route: who may call it (`person` = ID token only; `any` = ID token or API key; `public` = no
 * credential) and its handler.
 */
export interface Route {
  auth: 'public' | 'person' | 'any';
  /**
   * For `any`: the key scopes of which a program's key must hold one (core/keys/scopes).
   * @default ['read'] (the v1 API's key-readable routes are reads)
   */
  keyScopes?: readonly KeyScope[];
  /**
   * The least role a person needs (core/roles); below it the route answers 403 `role_required` and the
   * attempt is audited. Programs are bound by `keyScopes` instead.
   * @default 'viewer' (a read)
   */
  role?: Role;
  /**
   * For `any`: only programs call it (the route answers a person 403 itself); a request without any
   * credential then gets a 401 asking for a `Service-API-Key`, not an ID token.
   */
  programsOnly?: boolean;
  handle: (ctx: RouteContext, deps: ApiDeps) => Promise<APIGatewayProxyStructuredResultV2>;
}
