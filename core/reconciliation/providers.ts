/** The providers whose own usage and cost reports Spendguard reconciles against (docs/reconciliation.md). */
export const RECONCILED_PROVIDERS = ['openai', 'anthropic', 'openrouter'] as const;
export type ReconciledProvider = (typeof RECONCILED_PROVIDERS)[number];

export function isReconciledProvider(value: string): value is ReconciledProvider {
  return (RECONCILED_PROVIDERS as readonly string[]).includes(value);
}
