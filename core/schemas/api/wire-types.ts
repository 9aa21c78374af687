/**
 * The v1 API's response and request types, inferred from the zod schemas beside this file and
 * exported as types only. The dashboard imports them with `import type`, which its bundler erases:
 * its code type-checks against the contract without zod or core entering its bundle, so a schema
 * change breaks the dashboard's type check rather than its screen.
 * @module
 */
export type { ErrorBody, ErrorCode, Problem } from './errors';
export type { LedgerEntryView, LedgerPage, LedgerQuery } from './ledger';
export type { SpendResponse } from './spend';
export type { ForecastResponse, ForecastViewBody } from './forecast';
export type { BudgetStatus, PutBudgetRequest } from './budget';
export type { AdmissionPanel } from './budget-lease';
export type { ApiKeyView, CreateKeyRequest, CreateKeyResponse, KeyListResponse } from './keys';
export type { FlagListResponse, FlagView, Trip, TripListResponse } from './flags';
export type { SessionFlagView, SessionListResponse, SessionView } from './sessions';
export type { ReconciliationCredentialsResponse, ReconciliationResponse } from './reconciliation';
export type { AuditActor, AuditEntry, AuditPage } from './audit';
export type { EnforceClearRequest, EnforceResponse } from '../enforce';
export type { KeyScope } from '../../keys/scopes';
