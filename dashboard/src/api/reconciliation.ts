/**
 * Types of the reconciliation routes (docs/reconciliation.md, docs/api.md), inferred from
 * core/schemas/api/reconciliation.ts.
 */
import type * as Wire from '../../../core/schemas/api/wire-types';

export type ReconciliationResponse = Wire.ReconciliationResponse;
export type ProviderReconciliation = ReconciliationResponse['providers'][number];
export type ReconciliationDay = ProviderReconciliation['days'][number];
export type ReconciledProvider = ProviderReconciliation['provider'];
export type CredentialsResponse = Wire.ReconciliationCredentialsResponse;
