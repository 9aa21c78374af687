/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the zod schemas (core/schemas and
 * core/schemas/api) — never written by hand. `components.schemas` come from `z.toJSONSchema`
 * (JSON Schema draft 2020-12, the dialect of OpenAPI 3.1): request bodies converted as their input
 * type (defaults optional), responses as their output type. The v1 operations are listed from
 * `ROUTES` (their security from each route's `auth`), so a route without an entry in
 * {@link V1_OPERATIONS} makes {@link buildOpenApiDocument} throw (and the test fail). Examples are
 * composed from the fields' `.meta({ example })`; error examples are produced by `lambdas/shared/http`.
 * Served at `GET /v1/openapi.json`; see docs/openapi.md.
 * @module
 */
import { z } from 'zod';
import {
  budgetConfigSchema,
  clientEventBatchSchema,
  clientEventSchema,
  enforceClearRequestSchema,
  enforceClearResponseSchema,
  enforcePushRequestSchema,
  enforcePushResponseSchema,
  enforceRequestSchema,
  enforceResponseSchema,
  formatZodIssues,
  ingestEventSchema,
  ingestRequestSchema,
  ingestResponseSchema,
  MAX_INGEST_EVENTS,
} from '../../core/schemas';
import {
  auditEntrySchema,
  auditPageSchema,
  auditQuerySchema,
  auditSettingsResponseSchema,
  budgetEnforcementOnlySchema,
  budgetResponseSchema,
  putAuditSettingsRequestSchema,
  reconciliationProviderPathSchema,
  apiKeyViewSchema,
  budgetLeaseReleaseRequestSchema,
  budgetLeaseReleaseResponseSchema,
  settledCorrectionRequestSchema,
  settledCorrectionResponseSchema,
  budgetLeaseRequestSchema,
  budgetLeaseResponseSchema,
  budgetStatusSchema,
  createKeyRequestSchema,
  createKeyResponseSchema,
  errorBodySchema,
  flagListResponseSchema,
  flagViewSchema,
  forecastResponseSchema,
  forecastRunPathSchema,
  forecastRunSchema,
  forecastViewSchema,
  gatewayErrorSchema,
  healthResponseSchema,
  keyListResponseSchema,
  keyPathSchema,
  ledgerEntryViewSchema,
  ledgerPageSchema,
  ledgerQuerySchema,
  openApiDocumentSchema,
  pricingRatesResponseSchema,
  pricingRatesSchema,
  putBudgetRequestSchema,
  putReconciliationCredentialRequestSchema,
  reconciliationCredentialsResponseSchema,
  reconciliationResponseSchema,
  revokeKeyResponseSchema,
  sessionListResponseSchema,
  sessionViewSchema,
  sessionsQuerySchema,
  spendResponseSchema,
  tripListResponseSchema,
  tripSchema,
  tripsQuerySchema,
} from '../../core/schemas/api';
import { INTERNAL_ERROR, errorResponse, httpErrors, type HttpError } from '../shared/http';
import type { Route } from './routes/types';

type JsonSchema = z.core.JSONSchema.BaseSchema;
type Resolve = (ref: string) => JsonSchema;

/** Request bodies, by component name (converted as their input type). */
export const REQUEST_SCHEMAS = {
  IngestRequest: ingestRequestSchema,
  IngestEvent: ingestEventSchema,
  ClientEventBatch: clientEventBatchSchema,
  ClientEvent: clientEventSchema,
  EnforceRequest: enforceRequestSchema,
  EnforcePushRequest: enforcePushRequestSchema,
  EnforceClearRequest: enforceClearRequestSchema,
  PutBudgetRequest: putBudgetRequestSchema,
  BudgetConfig: budgetConfigSchema,
  BudgetLeaseRequest: budgetLeaseRequestSchema,
  BudgetLeaseReleaseRequest: budgetLeaseReleaseRequestSchema,
  SettledCorrectionRequest: settledCorrectionRequestSchema,
  CreateKeyRequest: createKeyRequestSchema,
  PutReconciliationCredentialRequest: putReconciliationCredentialRequestSchema,
  PricingRates: pricingRatesSchema,
  PutAuditSettingsRequest: putAuditSettingsRequestSchema,
} as const satisfies Record<string, z.ZodType>;

/** Response bodies, by component name (converted as their output type). */
export const RESPONSE_SCHEMAS = {
  Error: errorBodySchema,
  GatewayError: gatewayErrorSchema,
  IngestResponse: ingestResponseSchema,
  EnforceResponse: enforceResponseSchema,
  EnforcePushResponse: enforcePushResponseSchema,
  EnforceClearResponse: enforceClearResponseSchema,
  HealthResponse: healthResponseSchema,
  LedgerPage: ledgerPageSchema,
  LedgerEntry: ledgerEntryViewSchema,
  SpendResponse: spendResponseSchema,
  ForecastResponse: forecastResponseSchema,
  ForecastRun: forecastRunSchema,
  Forecast: forecastViewSchema,
  BudgetStatus: budgetStatusSchema,
  BudgetEnforcementOnly: budgetEnforcementOnlySchema,
  BudgetResponse: budgetResponseSchema,
  BudgetLease: budgetLeaseResponseSchema,
  BudgetLeaseRelease: budgetLeaseReleaseResponseSchema,
  SettledCorrection: settledCorrectionResponseSchema,
  FlagView: flagViewSchema,
  FlagList: flagListResponseSchema,
  TripList: tripListResponseSchema,
  Trip: tripSchema,
  KeyList: keyListResponseSchema,
  ApiKey: apiKeyViewSchema,
  CreateKeyResponse: createKeyResponseSchema,
  RevokeKeyResponse: revokeKeyResponseSchema,
  OpenApiDocument: openApiDocumentSchema,
  ReconciliationResponse: reconciliationResponseSchema,
  ReconciliationCredentials: reconciliationCredentialsResponseSchema,
  SessionList: sessionListResponseSchema,
  Session: sessionViewSchema,
  PricingRatesResponse: pricingRatesResponseSchema,
  AuditPage: auditPageSchema,
  AuditEntry: auditEntrySchema,
  AuditSettings: auditSettingsResponseSchema,
} as const satisfies Record<string, z.ZodType>;

export type RequestName = keyof typeof REQUEST_SCHEMAS;
export type ResponseName = keyof typeof RESPONSE_SCHEMAS;

/** Every component schema of the document, by name: what a `$ref` of the document stands for. */
export const COMPONENT_SCHEMAS: Readonly<Record<RequestName | ResponseName, z.ZodType>> = {
  ...REQUEST_SCHEMAS,
  ...RESPONSE_SCHEMAS,
};

/** Error statuses, each a shared response of `components.responses` with the error body. */
export const ERROR_RESPONSES = {
  400: { name: 'BadRequest', description: 'The request is invalid; `problems` says what and where.' },
  401: { name: 'Unauthorized', description: 'Missing, malformed, unknown, revoked or expired credential.' },
  403: {
    name: 'Forbidden',
    description:
      'The credential is valid but not for this: an ID token without an organization, a key of another one, ' +
      'or (code scope_missing, type permission_error) an API key without the scope the operation needs, ' +
      'or (code role_required, type forbidden) a person whose role (Cognito group admin, member or viewer) may not do this.',
  },
  404: { name: 'NotFound', description: 'No such resource in this organization.' },
  409: {
    name: 'Conflict',
    description: "The request contradicts another organization's claim (an AWS account's Bedrock figures).",
  },
  413: {
    name: 'PayloadTooLarge',
    description: `More than ${MAX_INGEST_EVENTS} events, or a body over 1 MB.`,
  },
  429: {
    name: 'TooManyRequests',
    description:
      'Over the per-key rate limit (ingest: burst 40, 20 requests/s); retry after `Retry-After` seconds.',
  },
  500: { name: 'InternalError', description: 'An error of ours; the body says nothing more.' },
  503: {
    name: 'Unavailable',
    description: 'A dependency is unavailable; retry after `Retry-After` seconds.',
  },
} as const;
export type ErrorStatus = keyof typeof ERROR_RESPONSES;

/**
 * Who may call: `public` (no credential), `person` (ID token, checked by the gateway's JWT authorizer),
 * `any` (ID token or `Service-API-Key`), `serviceKey` (`Service-API-Key` only), `bodyKey` (`apiKey` in
 * the JSON body). The v1 routes take theirs from `ROUTES[routeKey].auth` (`serviceKey` where `programsOnly`).
 */
export type Access = Route['auth'] | 'serviceKey' | 'bodyKey';

const TAGS = {
  Ingest: 'Telemetry in: SDK batches and plain ingest.',
  Guardrails: 'Kill flags and guardrail trips.',
  Ledger: 'The Forensic Ledger and spend.',
  Forecast: 'The Monte Carlo burn forecast.',
  Budget: 'Budget and guardrail policy.',
  Pricing: "The organization's own pricing rates (contracted and self-hosted).",
  Keys: 'API keys.',
  Reconciliation: "The ledger against the providers' own usage and cost reports.",
  Service: 'Health and this document.',
  Audit: 'The audit log: every change, who made it, before and after.',
} as const;
type Tag = keyof typeof TAGS;

/** Non-error statuses an operation answers with. */
export type SuccessStatus = 200 | 201 | 202 | 503;

/** One operation: what the document says of it beyond what the route table already says. */
export interface OperationSpec {
  operationId: string;
  summary: string;
  description?: string;
  tag: Tag;
  /** JSON request body. */
  body?: RequestName;
  /** Query parameters: a strict zod object whose fields are the parameters. */
  query?: z.ZodObject;
  /** Path parameters. */
  path?: z.ZodObject;
  /** Every non-error response, by status. */
  responses: Readonly<Partial<Record<SuccessStatus, { description: string; schema: ResponseName }>>>;
  /** Error statuses of the operation itself; 401/403 follow from its access, 500 is always listed. */
  errors: readonly ErrorStatus[];
}

const ok = (schema: ResponseName, description: string) => ({ 200: { schema, description } });

/** The endpoints outside the v1 handler (lambdas/ingest, lambdas/enforce), with their access. */
export const OTHER_OPERATIONS: Readonly<Record<string, OperationSpec & { access: Access }>> = {
  'POST /api/ingest': {
    access: 'bodyKey',
    operationId: 'ingest',
    summary: 'Ingest events (token counts only)',
    description:
      `Spec 4.1. At most ${MAX_INGEST_EVENTS} events and 1 MB. The server prices each event; ` +
      'nothing is stored unless the whole batch is valid.',
    tag: 'Ingest',
    body: 'IngestRequest',
    responses: ok('IngestResponse', 'Accepted.'),
    errors: [400, 413, 429, 503],
  },
  'POST /v1/events': {
    access: 'serviceKey',
    operationId: 'postEvents',
    summary: 'Ingest SDK telemetry events',
    description: `Spec 2.1: the SDK's batches. At most ${MAX_INGEST_EVENTS} events and 1 MB; answers as POST /api/ingest.`,
    tag: 'Ingest',
    body: 'ClientEventBatch',
    responses: ok('IngestResponse', 'Accepted.'),
    errors: [400, 413, 429, 503],
  },
  'POST /api/guardrails/enforce': {
    access: 'person',
    operationId: 'enforce',
    summary: 'Push or clear the kill flag',
    description:
      'Spec 4.2. `apiKey` is a whole key or its prefix abn_<publicId>; the caller must own it (403 otherwise). ' +
      'SUSPENDED lives 2 hours, THROTTLED 30 minutes; ACTIVE clears the flag and answers RESUMED. ' +
      'An unknown member is a 400 naming it; a body over 16 KB is a 413.',
    tag: 'Guardrails',
    body: 'EnforceRequest',
    responses: ok('EnforceResponse', 'The flag pushed, or cleared.'),
    errors: [400, 413],
  },
};

/** The v1 routes: one entry per key of `ROUTES` (the document cannot be built otherwise). */
export const V1_OPERATIONS: Readonly<Record<string, OperationSpec>> = {
  'GET /v1/health': {
    operationId: 'getHealth',
    summary: 'Service health',
    tag: 'Service',
    responses: {
      200: { schema: 'HealthResponse', description: 'Healthy.' },
      503: {
        schema: 'HealthResponse',
        description: 'Degraded: a check failed (the health body, not an error body).',
      },
    },
    errors: [],
  },
  'GET /v1/openapi.json': {
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    tag: 'Service',
    responses: ok('OpenApiDocument', 'The OpenAPI 3.1 document, generated from the schemas.'),
    errors: [],
  },
  'GET /v1/ledger': {
    operationId: 'getLedger',
    summary: 'Forensic Ledger entries, newest first',
    tag: 'Ledger',
    query: ledgerQuerySchema,
    responses: ok('LedgerPage', 'A page of entries.'),
    errors: [400],
  },
  'GET /v1/spend': {
    operationId: 'getSpend',
    summary: 'Spend overview',
    tag: 'Ledger',
    responses: ok('SpendResponse', 'Totals, breakdowns and series.'),
    errors: [],
  },
  'GET /v1/forecast': {
    operationId: 'getForecast',
    summary: 'The latest Monte Carlo forecast',
    tag: 'Forecast',
    responses: ok('ForecastResponse', 'The forecast; both members null before the first run.'),
    errors: [],
  },
  'POST /v1/forecast/run': {
    operationId: 'runForecast',
    summary: 'Recompute the forecast now (asynchronous)',
    tag: 'Forecast',
    responses: {
      202: {
        schema: 'ForecastRun',
        description: 'Started: poll GET /v1/forecast/runs/{runId}, then read GET /v1/forecast.',
      },
    },
    errors: [],
  },
  'GET /v1/forecast/runs/{runId}': {
    operationId: 'getForecastRun',
    summary: 'The status of an on-demand forecast run',
    tag: 'Forecast',
    path: forecastRunPathSchema,
    responses: ok('ForecastRun', 'The run.'),
    errors: [400, 404],
  },
  'GET /v1/budget': {
    operationId: 'getBudget',
    summary: 'Budget, policy and status',
    description:
      'People and keys with the read scope get the status; a key without read (ingest only) gets only its enforcement block.',
    tag: 'Budget',
    responses: ok('BudgetResponse', 'The budget status, or the enforcement block alone.'),
    errors: [],
  },
  'PUT /v1/budget': {
    operationId: 'putBudget',
    summary: 'Update the budget or the guardrail policy',
    description: 'Audited (budget.updated); removing a hard cap notifies the organization.',
    tag: 'Budget',
    body: 'PutBudgetRequest',
    responses: ok('BudgetStatus', 'The updated status, as GET.'),
    errors: [400],
  },
  'GET /v1/pricing/rates': {
    operationId: 'getPricingRates',
    summary: "The organization's own pricing rates",
    tag: 'Pricing',
    responses: ok('PricingRatesResponse', 'The stored rates ({} when none).'),
    errors: [],
  },
  'PUT /v1/pricing/rates': {
    operationId: 'putPricingRates',
    summary: 'Replace the pricing rates (self-hosted endpoint families, contracted prices, discounts)',
    description: 'Audited (pricing_rates.updated); a cut by more than half notifies the organization.',
    tag: 'Pricing',
    body: 'PricingRates',
    responses: ok('PricingRatesResponse', 'The saved rates.'),
    errors: [400],
  },
  'POST /v1/budget/lease': {
    operationId: 'takeBudgetLease',
    summary: 'Take or renew a budget lease',
    description:
      'A slice of the remaining budget for a program holding calls to it in memory (docs/admission.md). Service-API-Key only.',
    tag: 'Budget',
    body: 'BudgetLeaseRequest',
    responses: ok('BudgetLease', 'The slice now held, and the key’s enforcement state.'),
    errors: [400, 403, 429, 503],
  },
  'POST /v1/budget/lease/release': {
    operationId: 'releaseBudgetLease',
    summary: 'Release a budget lease',
    description:
      'Final report of a holder: its spend is settled, its unused slice returns. Service-API-Key only.',
    tag: 'Budget',
    body: 'BudgetLeaseReleaseRequest',
    responses: ok('BudgetLeaseRelease', 'Released.'),
    errors: [400, 403, 429, 503],
  },
  'POST /v1/budget/settled/correct': {
    operationId: 'correctSettledSpend',
    summary: 'Correct settled spend (audited)',
    description:
      'Adds a signed correction to the settled spend of the current UTC day and month, e.g. after a forged ' +
      'lease report, and appends an audit record (who, when, why, before, after). People only; admin role.',
    tag: 'Budget',
    body: 'SettledCorrectionRequest',
    responses: ok('SettledCorrection', 'The correction and the settled figures before and after.'),
    errors: [400, 403],
  },
  'GET /v1/keys': {
    operationId: 'listKeys',
    summary: "The organization's API keys",
    tag: 'Keys',
    responses: ok('KeyList', 'The keys, without secrets.'),
    errors: [],
  },
  'POST /v1/keys': {
    operationId: 'createKey',
    summary: 'Create an API key',
    description: 'The whole key is in this response only; only its HMAC is stored.',
    tag: 'Keys',
    body: 'CreateKeyRequest',
    responses: { 201: { schema: 'CreateKeyResponse', description: 'Created.' } },
    errors: [400],
  },
  'DELETE /v1/keys/{publicId}': {
    operationId: 'revokeKey',
    summary: 'Revoke an API key',
    tag: 'Keys',
    path: keyPathSchema,
    responses: ok('RevokeKeyResponse', 'Revoked.'),
    errors: [400, 404],
  },
  'GET /v1/flags': {
    operationId: 'listFlags',
    summary: 'Active kill flags',
    tag: 'Guardrails',
    responses: ok('FlagList', 'The active flags.'),
    errors: [],
  },
  'GET /v1/guardrails/trips': {
    operationId: 'listTrips',
    summary: 'Recent guardrail trips',
    tag: 'Guardrails',
    query: tripsQuerySchema,
    responses: ok('TripList', 'Trips and soft-cap warnings, newest first.'),
    errors: [400],
  },
  'GET /v1/reconciliation': {
    operationId: 'getReconciliation',
    summary: "The latest reconciliation against the providers' own reports",
    tag: 'Reconciliation',
    responses: ok('ReconciliationResponse', 'Per provider, day and model; empty before the first run.'),
    errors: [],
  },
  'POST /v1/reconciliation/run': {
    operationId: 'runReconciliation',
    summary: 'Reconcile now',
    description:
      "Reads each configured provider's usage and cost reports (OpenAI organization Usage and Costs APIs, Anthropic Admin API usage and cost reports, OpenRouter activity) and compares them with the ledger; a provider that fails is listed in `errors`.",
    tag: 'Reconciliation',
    responses: ok('ReconciliationResponse', 'The new reconciliation, as GET.'),
    errors: [],
  },
  'GET /v1/reconciliation/credentials': {
    operationId: 'getReconciliationCredentials',
    summary: 'Which providers have an admin credential stored',
    tag: 'Reconciliation',
    responses: ok('ReconciliationCredentials', 'Configured or not, per provider; never a credential.'),
    errors: [],
  },
  'PUT /v1/reconciliation/credentials': {
    operationId: 'putReconciliationCredentials',
    summary: "Store a provider's admin credential, or configure Bedrock's",
    description:
      "Secrets Manager in AWS, the local secrets file locally; never returned, never logged. Audited (credentials.stored, without the key). For `bedrock` there is no key: the body names the regions whose CloudWatch token metrics are read, and the organization claims the deployment account's Bedrock figures (409 when another organization holds them).",
    tag: 'Reconciliation',
    body: 'PutReconciliationCredentialRequest',
    responses: ok('ReconciliationCredentials', 'Configured or not, per provider.'),
    errors: [400, 409],
  },
  'DELETE /v1/reconciliation/credentials/{provider}': {
    operationId: 'deleteReconciliationCredentials',
    summary: "Delete a provider's stored admin credential",
    description:
      'Idempotent; afterwards GET reads configured: false. In AWS the secret is scheduled for deletion (7-day recovery window). Audited (credentials.deleted).',
    tag: 'Reconciliation',
    path: reconciliationProviderPathSchema,
    responses: ok('ReconciliationCredentials', 'Configured or not, per provider.'),
    errors: [400],
  },
  'GET /v1/audit': {
    operationId: 'getAudit',
    summary: 'The audit log, newest first',
    description:
      'Every change (budget and policy, rates, credentials, keys, flags, settled-spend corrections) and every refused attempt (role.denied), with who, when, before and after; never a secret.',
    tag: 'Audit',
    query: auditQuerySchema,
    responses: ok('AuditPage', 'A page of entries.'),
    errors: [400],
  },
  'PUT /v1/audit/settings': {
    operationId: 'putAuditSettings',
    summary: 'Set how long new audit entries are kept',
    description: 'Entries already written keep their retention. Audited (audit_settings.updated).',
    tag: 'Audit',
    body: 'PutAuditSettingsRequest',
    responses: ok('AuditSettings', 'The retention now in force.'),
    errors: [400],
  },
  'GET /v1/sessions': {
    operationId: 'listSessions',
    summary: 'Agent sessions of the last hours',
    description:
      'Per session (the SDK sessionId or the x-spendguard-session header): calls, cost, prompt-token growth, ' +
      'repeated fingerprints, the trip that stopped it and its session flag. Resume one with ' +
      "POST /api/guardrails/enforce { action: 'ACTIVE', scope: 'session', keyId, sessionId }.",
    tag: 'Guardrails',
    query: sessionsQuerySchema,
    responses: ok('SessionList', 'Sessions, most recently active first.'),
    errors: [400],
  },
};

/** Security requirements by access; `[]` = none. */
const SECURITY: Readonly<Record<Access, Array<Record<string, string[]>>>> = {
  public: [],
  person: [{ IdToken: [] }],
  any: [{ ServiceApiKey: [] }, { IdToken: [] }],
  serviceKey: [{ ServiceApiKey: [] }],
  bodyKey: [],
};

/**
 * The errors an access adds: 401 for a credential, 403 for an ID token without an organization or a key
 * without the scope, 503 when keys cannot be verified right now (identity fails closed).
 */
const ACCESS_ERRORS: Readonly<Record<Access, readonly ErrorStatus[]>> = {
  public: [],
  person: [401, 403],
  any: [401, 403, 503],
  serviceKey: [401, 403, 503],
  bodyKey: [401, 403, 503],
};

/** Used only where a field's schema carries no example of its own (a refinement has no JSON Schema). */
const FIELD_EXAMPLES: Readonly<Record<string, unknown>> = {
  apiKey: 'abn_k3v9x0q2m7za_6JpQ2mX9vT4rL8sW1yB3nC5dF7gH0jK2lM4pR6tV8xZ',
};

/** JSON Schema `format`s kept in the document; zod's own (starts_with, …) are not JSON Schema. */
const STANDARD_FORMATS = new Set([
  'date-time',
  'date',
  'time',
  'duration',
  'email',
  'uri',
  'uuid',
  'ipv4',
  'ipv6',
]);

export interface OpenApiOptions {
  /** The deployed version (`info.version`). */
  version: string;
  /**
   * The v1 route table (`ROUTES` of handler.ts), passed in rather than imported: the handler serves
   * this document, so importing it back would make an import circle.
   */
  routes: Readonly<Record<string, Pick<Route, 'auth' | 'role' | 'programsOnly'>>>;
  /** Where the API is; when absent, clients resolve paths against the document's own address. */
  servers?: Array<{ url: string; description?: string }>;
}

/** An OpenAPI 3.1 document (only what this module writes is typed). */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers?: Array<{ url: string; description?: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, OpenApiResponse>;
    securitySchemes: Record<string, Record<string, string>>;
  };
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Array<Record<string, string[]>>;
  parameters?: OpenApiParameter[];
  requestBody?: { required: true; content: { 'application/json': MediaType } };
  responses: Record<string, OpenApiResponse | { $ref: string }>;
}

export interface OpenApiParameter {
  name: string;
  in: 'query' | 'path';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  example: unknown;
}

export interface MediaType {
  schema: { $ref: string };
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  content: { 'application/json': MediaType };
}

/**
 * The OpenAPI 3.1 document of every HTTP endpoint of the product: `POST /api/ingest`,
 * `POST /v1/events`, `POST /api/guardrails/enforce` and every route of `ROUTES`.
 *
 * @example
 * const doc = buildOpenApiDocument({ version: '0.1.0', routes: ROUTES });
 * doc.paths['/v1/guardrails/trips']!.get!.parameters; // [{ name: 'limit', in: 'query', required: false, example: 50, … }]
 * @throws Error when a route of `ROUTES` has no entry in {@link V1_OPERATIONS}, or an entry no route
 */
export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const routes = options.routes;
  const routeKeys = Object.keys(routes);
  const missing = routeKeys.filter((k) => !(k in V1_OPERATIONS)).map((k) => `no OpenAPI entry for ${k}`);
  const stale = Object.keys(V1_OPERATIONS)
    .filter((k) => !(k in routes))
    .map((k) => `no route for ${k}`);
  if (missing.length > 0 || stale.length > 0) {
    throw new Error(
      `lambdas/api/openapi.ts is out of step with ROUTES: ${[...missing, ...stale].join('; ')}`,
    );
  }

  const schemas = componentSchemas();
  const resolve: Resolve = (ref) => {
    const schema = schemas[ref.replace(/^#\/components\/schemas\//, '')];
    if (schema === undefined) throw new Error(`unresolved $ref ${ref}`);
    return schema;
  };

  const operations: Array<[routeKey: string, spec: OperationSpec, access: Access]> = [
    ...Object.entries(OTHER_OPERATIONS).map(([k, spec]): [string, OperationSpec, Access] => [
      k,
      spec,
      spec.access,
    ]),
    ...routeKeys.map((k): [string, OperationSpec, Access] =>
      // A programs-only route takes a key alone: no person role applies to it.
      routes[k]!.programsOnly === true
        ? [k, V1_OPERATIONS[k]!, 'serviceKey']
        : [k, withRole(V1_OPERATIONS[k]!, routes[k]!), routes[k]!.auth],
    ),
  ];
  const paths: OpenApiDocument['paths'] = {};
  for (const [routeKey, spec, access] of operations) {
    const [method, path] = routeKey.split(' ') as [string, string];
    (paths[path] ??= {})[method.toLowerCase()] = operation(spec, access, resolve);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Spendguard API',
      version: options.version,
      description:
        'AI spend telemetry and runaway-agent guardrails. Generated from the zod schemas of the service ' +
        '(docs/openapi.md); every error of the service is `{ error: { code, message, problems? } }` (docs/api.md).',
    },
    ...(options.servers ? { servers: options.servers } : {}),
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas,
      responses: errorComponents(resolve),
      securitySchemes: {
        ServiceApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Service-API-Key',
          description: 'An organization API key, abn_<publicId>_<secret> (programs: the SDK, scripts).',
        },
        IdToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'An ID token (Cognito in AWS, the local issuer locally); the organization is its custom:orgId claim.',
        },
      },
    },
  };
}

let cached: { version: string; document: OpenApiDocument } | undefined;

/** {@link buildOpenApiDocument} without servers, built once per version: what `GET /v1/openapi.json` serves. */
export function openApiDocument(version: string, routes: OpenApiOptions['routes']): OpenApiDocument {
  if (cached?.version !== version) cached = { version, document: buildOpenApiDocument({ version, routes }) };
  return cached.document;
}

/** The route's least role (core/roles), said in the description, and its 403, from the route table. */
function withRole(spec: OperationSpec, route: Pick<Route, 'auth' | 'role'>): OperationSpec {
  if (route.auth === 'public') return spec;
  const role = route.role ?? 'viewer';
  const who =
    role === 'viewer'
      ? 'People: any role.'
      : role === 'member'
        ? 'People: role member or admin.'
        : 'People: role admin.';
  return {
    ...spec,
    description: `${who} ${spec.description ?? ''}`.trim(),
    errors: role === 'viewer' ? spec.errors : [...spec.errors, 403],
  };
}

function operation(spec: OperationSpec, access: Access, resolve: Resolve): OpenApiOperation {
  const parameters = [
    ...(spec.path ? parametersOf(spec.path, 'path', resolve) : []),
    ...(spec.query ? parametersOf(spec.query, 'query', resolve) : []),
  ];
  const responses: OpenApiOperation['responses'] = {};
  for (const [status, r] of Object.entries(spec.responses)) {
    responses[status] = {
      description: r.description,
      content: { 'application/json': mediaType(r.schema, resolve) },
    };
  }
  const errors = [...new Set<ErrorStatus>([...spec.errors, ...ACCESS_ERRORS[access], 500])].sort(
    (a, b) => a - b,
  );
  for (const status of errors) {
    // On `person` routes the gateway's JWT authorizer answers 401 itself, with its own body.
    const name = status === 401 && access === 'person' ? 'GatewayUnauthorized' : ERROR_RESPONSES[status].name;
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  const credential =
    access === 'bodyKey'
      ? ' Credential: `apiKey` in the JSON body.'
      : access === 'public'
        ? ' No credential.'
        : '';
  const description = `${spec.description ?? ''}${credential}`.trim();
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(description ? { description } : {}),
    tags: [spec.tag],
    security: SECURITY[access],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body
      ? { requestBody: { required: true, content: { 'application/json': mediaType(spec.body, resolve) } } }
      : {}),
    responses,
  };
}

/** A body: the `$ref` of its component and an example, or one example per branch of a union of components. */
function mediaType(name: RequestName | ResponseName, resolve: Resolve): MediaType {
  const ref = `#/components/schemas/${name}`;
  const target = resolve(ref);
  const branches = target.oneOf ?? target.anyOf ?? [];
  if (branches.length > 1 && branches.every((b) => typeof b.$ref === 'string')) {
    const examples: NonNullable<MediaType['examples']> = {};
    for (const b of branches) {
      const branch = resolve(b.$ref!);
      examples[b.$ref!.split('/').pop()!] = {
        ...(branch.description ? { summary: branch.description } : {}),
        value: exampleOf(branch, resolve),
      };
    }
    return { schema: { $ref: ref }, examples };
  }
  return { schema: { $ref: ref }, example: exampleOf(target, resolve) };
}

/** The fields of a query or path schema as parameters, each with its schema, description and example. */
function parametersOf(schema: z.ZodObject, where: 'query' | 'path', resolve: Resolve): OpenApiParameter[] {
  const json = toJsonSchema(schema, 'input');
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property as JsonSchema;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
      example: exampleOf(rest, resolve, name),
    };
  });
}

/** The component schemas: requests as their input type, responses as their output type. */
function componentSchemas(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const tables = [
    ['input', REQUEST_SCHEMAS],
    ['output', RESPONSE_SCHEMAS],
  ] as const;
  for (const [io, table] of tables) {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of Object.entries(table)) registry.add(schema, { id });
    const converted = z.toJSONSchema(registry, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'throw',
      uri: (id) => `#/components/schemas/${id}`,
      override: tidy,
    }).schemas;
    for (const [id, schema] of Object.entries(converted)) {
      if (id === '__shared')
        throw new Error('a schema would be extracted to __shared: register it as a component');
      const { $schema: _schema, $id: _id, ...body } = schema as JsonSchema;
      out[id] = body;
    }
  }
  return out;
}

function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'throw',
    override: tidy,
  });
  const { $schema: _schema, ...body } = json as JsonSchema;
  return body;
}

/** `example` (our zod metadata) → `examples` (JSON Schema 2020-12); zod-only `format`s dropped. */
function tidy(ctx: { jsonSchema: JsonSchema }): void {
  const s = ctx.jsonSchema;
  if ('example' in s) {
    s.examples = [s.example];
    delete s.example;
  }
  if (typeof s.format === 'string' && !STANDARD_FORMATS.has(s.format)) delete s.format;
}

/**
 * An example value of a JSON Schema, from the `examples` of its fields (zod `.meta({ example })`), else
 * its `const`, `default` or first `enum` value; an object gets every property that has one (an optional
 * property without one is left out).
 * @throws Error for a required string with a pattern and no example: a made-up value would not match it
 */
export function exampleOf(schema: JsonSchema, resolve: Resolve, name = '', depth = 0): unknown {
  if (depth > 32) throw new Error(`example of ${name}: schema too deep`);
  if (typeof schema.$ref === 'string') return exampleOf(resolve(schema.$ref), resolve, name, depth + 1);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (name in FIELD_EXAMPLES) return FIELD_EXAMPLES[name];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches && branches.length > 0) {
    return exampleOf(branches.find((b) => b.type !== 'null') ?? branches[0]!, resolve, name, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const required = new Set(schema.required ?? []);
      const out: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(schema.properties ?? {})) {
        try {
          out[key] = exampleOf(property as JsonSchema, resolve, key, depth + 1);
        } catch (err) {
          if (required.has(key)) throw err;
        }
      }
      return out;
    }
    case 'array': {
      const items = schema.items;
      if (items === undefined || typeof items !== 'object' || Array.isArray(items)) return [];
      const item = exampleOf(items, resolve, name, depth + 1);
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
    }
    case 'string':
      if (schema.format === 'date-time') return '2026-04-09T12:00:00.000Z';
      if (schema.format === 'date') return '2026-04-09';
      if (schema.format === 'uuid') return '5f0c8a4e-3b7d-4c21-9a6e-2d1f0b9c7e34';
      if (schema.pattern !== undefined) throw new Error(`example of ${name}: a pattern and no example`);
      return 'string';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

/** The shared error responses, with example bodies produced by the handlers' own error factories. */
function errorComponents(resolve: Resolve): Record<string, OpenApiResponse> {
  const invalid = ingestRequestSchema.safeParse({
    apiKey: FIELD_EXAMPLES.apiKey,
    events: [{ model: 'gpt-4o-mini', usage: { completion_tokens: 10 } }],
  });
  const errors: Record<Exclude<ErrorStatus, 500>, HttpError> = {
    400: httpErrors.badRequest(
      'invalid ingest request',
      invalid.success ? [] : formatZodIssues(invalid.error),
    ),
    401: httpErrors.unauthorized(),
    403: httpErrors.forbidden(),
    404: httpErrors.notFound(),
    409: httpErrors.conflict(
      'the Bedrock figures of AWS account 123456789012 are already reconciled by another organization',
    ),
    413: httpErrors.tooLarge(
      `a batch holds at most ${MAX_INGEST_EVENTS} events; got ${MAX_INGEST_EVENTS + 1}`,
    ),
    429: httpErrors.tooManyRequests(
      'this API key sends more than 20 requests per second; retry after 1 s',
      1,
    ),
    503: httpErrors.unavailable('the event stream is unavailable; retry later', 5),
  };
  const out: Record<string, OpenApiResponse> = {};
  for (const [key, { name, description }] of Object.entries(ERROR_RESPONSES)) {
    const status = Number(key) as ErrorStatus;
    const body = status === 500 ? INTERNAL_ERROR.body : errorResponse(errors[status]).body;
    out[name] = {
      description,
      ...(status === 503
        ? {
            headers: {
              'Retry-After': {
                description: 'Seconds to wait before retrying.',
                schema: { type: 'integer', minimum: 1 },
              },
            },
          }
        : {}),
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          example: JSON.parse(body ?? 'null'),
        },
      },
    };
  }
  out.GatewayUnauthorized = {
    description:
      "Missing, invalid or expired ID token, refused by the gateway's JWT authorizer with its own body.",
    content: { 'application/json': mediaType('GatewayError', resolve) },
  };
  return out;
}
