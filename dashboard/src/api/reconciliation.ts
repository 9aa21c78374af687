/** Types of the reconciliation routes (docs/reconciliation.md, docs/api.md). */

export type ReconciledProvider = 'openai' | 'anthropic' | 'openrouter';

export interface ReconciliationDay {
  date: string;
  /** Absent for spend the provider attributes to no model (a tool fee). */
  model?: string;
  ledgerUsd: number;
  providerUsd: number;
  untrackedUsd: number;
  overcountedUsd: number;
  ledgerTokens: number;
  providerTokens: number;
}

export interface ProviderReconciliation {
  provider: ReconciledProvider;
  ledgerUsd: number;
  providerUsd: number;
  untrackedUsd: number;
  overcountedUsd: number;
  agreementPct: number | null;
  tokenAgreementPct: number | null;
  days: ReconciliationDay[];
}

export interface ReconciliationResponse {
  providers: ProviderReconciliation[];
  computedAt: string | null;
  window: { from: string; to: string } | null;
  errors: Array<{ provider: ReconciledProvider; message: string }>;
}

export interface CredentialsResponse {
  providers: Array<{ provider: ReconciledProvider; configured: boolean }>;
}
