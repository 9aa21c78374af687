import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Principal } from '../../shared/principal';
import type { ForecastRuns } from '../../forecast/runs';
import type { IdTokenVerifier, Services } from '../../shared/services';
import type { PriceRegistry } from '../../../core/pricing';

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
  version: string;
}

/**
 * One route: who may call it (`person` = ID token only; `any` = ID token or API key; `public` = no
 * credential) and its handler.
 */
export interface Route {
  auth: 'public' | 'person' | 'any';
  handle: (ctx: RouteContext, deps: ApiDeps) => Promise<APIGatewayProxyStructuredResultV2>;
}
