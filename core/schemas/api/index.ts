/**
 * The v1 API's request queries and response bodies (zod 4), the source of the OpenAPI document
 * (lambdas/api/openapi.ts) and of the response-conformance tests. Request bodies of ingest and
 * enforcement live beside the other wire formats in core/schemas.
 * @module
 */
export {
  ERROR_CODES,
  errorBodySchema,
  errorCodeSchema,
  gatewayErrorSchema,
  problemSchema,
  type ErrorBody,
  type ErrorCode,
  type GatewayError,
  type Problem,
} from './errors';
export { healthResponseSchema, type HealthResponse } from './health';
export {
  MAX_LEDGER_PAGE,
  ledgerEntryViewSchema,
  ledgerPageSchema,
  ledgerQuerySchema,
  ledgerSourceSchema,
  type LedgerEntryView,
  type LedgerPage,
  type LedgerQuery,
} from './ledger';
export { spendResponseSchema, type SpendResponse } from './spend';
export {
  forecastFanPointSchema,
  forecastHorizonViewSchema,
  forecastResponseSchema,
  forecastResultSchema,
  forecastRunPathSchema,
  forecastRunSchema,
  forecastViewSchema,
  horizonForecastSchema,
  type ForecastResponse,
  type ForecastRunBody,
  type ForecastViewBody,
} from './forecast';
export {
  budgetEnforcementOnlySchema,
  budgetResponseSchema,
  budgetStatusSchema,
  putBudgetRequestSchema,
  type BudgetEnforcementOnly,
  type BudgetStatus,
  type PutBudgetRequest,
} from './budget';
export {
  admissionPanelSchema,
  budgetLeaseReleaseRequestSchema,
  budgetLeaseReleaseResponseSchema,
  budgetLeaseRequestSchema,
  budgetLeaseResponseSchema,
  leaseEnforcementSchema,
  type AdmissionPanel,
  type BudgetLeaseReleaseRequest,
  type BudgetLeaseRequest,
  type BudgetLeaseResponse,
  type LeaseEnforcement,
  settledCorrectionRequestSchema,
  settledCorrectionResponseSchema,
} from './budget-lease';
export {
  apiKeyViewSchema,
  createKeyRequestSchema,
  createKeyResponseSchema,
  keyListResponseSchema,
  keyPathSchema,
  keyPublicIdSchema,
  keyScopeSchema,
  keyScopesSchema,
  revokeKeyResponseSchema,
  type ApiKeyView,
  type CreateKeyRequest,
  type CreateKeyResponse,
  type KeyListResponse,
  type RevokeKeyResponse,
} from './keys';
export {
  MAX_TRIPS,
  flagListResponseSchema,
  flagViewSchema,
  tripListResponseSchema,
  tripSchema,
  tripsQuerySchema,
  type FlagListResponse,
  type FlagView,
  type Trip,
  type TripListResponse,
  type TripsQuery,
} from './flags';
export { openApiDocumentSchema, type OpenApiDocumentBody } from './openapi-document';
export {
  providerReconciliationSchema,
  putReconciliationCredentialRequestSchema,
  reconciliationCredentialsResponseSchema,
  reconciliationDaySchema,
  reconciliationResponseSchema,
  type PutReconciliationCredentialRequest,
  reconciliationProviderPathSchema,
  type ReconciliationCredentialsResponse,
  type ReconciliationResponse,
} from './reconciliation';
export {
  MAX_SESSION_HOURS,
  sessionFlagSchema,
  sessionListResponseSchema,
  sessionViewSchema,
  sessionsQuerySchema,
  type SessionFlagView,
  type SessionListResponse,
  type SessionView,
  type SessionsQuery,
} from './sessions';
export {
  pricingRatesResponseSchema,
  pricingRatesSchema,
  type PricingRates,
  type PricingRatesResponse,
} from './pricing-rates';
export {
  AUDIT_ACTIONS,
  AUDIT_RETENTION_DAYS,
  MAX_AUDIT_PAGE,
  auditActionSchema,
  auditActorSchema,
  auditEntrySchema,
  auditPageSchema,
  auditQuerySchema,
  auditSettingsResponseSchema,
  putAuditSettingsRequestSchema,
  type AuditAction,
  type AuditActor,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
} from './audit';
