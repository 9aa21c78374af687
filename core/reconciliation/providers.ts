/** The providers whose own usage and cost reports Spendguard reconciles against (docs/reconciliation.md). */
export const RECONCILED_PROVIDERS = ['openai', 'anthropic', 'openrouter'] as const;
export type ReconciledProvider = (typeof RECONCILED_PROVIDERS)[number];

export function isReconciledProvider(value: string): value is ReconciledProvider {
  return (RECONCILED_PROVIDERS as readonly string[]).includes(value);
}

/**
 * Every provider reconciled: the admin-key providers above, and Amazon Bedrock, whose figures are the
 * account's CloudWatch token metrics, read with the reconciliation function's own role (no key).
 */
export const RECONCILIATION_SOURCES = [...RECONCILED_PROVIDERS, 'bedrock'] as const;
export type ReconciliationSource = (typeof RECONCILIATION_SOURCES)[number];

export function isReconciliationSource(value: string): value is ReconciliationSource {
  return (RECONCILIATION_SOURCES as readonly string[]).includes(value);
}
