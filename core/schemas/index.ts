/**
 * Wire formats (zod 4). The inferred types are the only definitions of these shapes.
 * @module
 */
export {
  MAX_ENDPOINT_LENGTH,
  MAX_EVENT_USD,
  MAX_LABEL_LENGTH,
  MAX_LATENCY_MS,
  MAX_CALL_TOKENS,
  MAX_TOKENS,
  FINGERPRINT_REGEX,
  costSourceSchema,
  environmentSchema,
  type CostSource,
  type Environment,
} from './common';
export {
  MAX_CLIENT_BATCH_EVENTS,
  clientEventBatchSchema,
  clientEventKindSchema,
  clientEventSchema,
  type ClientEvent,
  type ClientEventBatch,
  type ClientEventInput,
  type ClientEventKind,
} from './client-event';
export { proxyEventSchema, type ProxyEvent, type ProxyEventInput } from './proxy-event';
export {
  MAX_INGEST_EVENTS,
  ingestBatchOf,
  ingestEventSchema,
  ingestRequestSchema,
  ingestResponseSchema,
  ingestUsageSchema,
  type IngestEvent,
  type IngestRequest,
  type IngestResponse,
  type IngestUsage,
} from './ingest';
export {
  enforceClearRequestSchema,
  enforceClearResponseSchema,
  enforcePushRequestSchema,
  enforcePushResponseSchema,
  enforceRequestSchema,
  enforceResponseSchema,
  enforcementModeSchema,
  triggerTypeSchema,
  type EnforceClearRequest,
  type EnforceClearResponse,
  type EnforcePushRequest,
  type EnforcePushResponse,
  type EnforceRequest,
  type EnforceResponse,
  type EnforcementMode,
} from './enforce';
export { flagScopeSchema } from './enforce';
export {
  enforcementFlagSchema,
  enforcementStateSchema,
  type EnforcementFlag,
  type EnforcementState as EnforcementStateBody,
} from './enforcement-state';
export {
  MAX_BUDGET_USD,
  budgetActionSchema,
  budgetConfigSchema,
  clientBudgetOptionSchema,
  type BudgetAction,
  type BudgetConfig,
  type ClientBudgetOption,
} from './budget';
export { MAX_REPORTED_ISSUES, formatIssuePath, formatZodIssues, type FieldIssue } from './issues';
