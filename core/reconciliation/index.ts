/**
 * core/reconciliation: the ledger against the providers' own usage and cost reports (issue 13.5).
 * Pure: the reports come in parsed, the ledger rows come in read. See docs/reconciliation.md.
 */
export { decimalStringToNanos, CENT_DECIMALS_TO_NANOS } from './decimal-amount';
export { reconciliationModelKey } from './model-key';
export {
  anthropicCostRows,
  anthropicUsageRows,
  modelOfLineItem,
  openAiCostRows,
  openAiUsageRows,
  openRouterRows,
  type ProviderRow,
} from './provider-rows';
export { isReconciledProvider, RECONCILED_PROVIDERS, type ReconciledProvider } from './providers';
export {
  agreementPercent,
  DEFAULT_TOLERANCE_NANOS,
  reconcile,
  windowDays,
  type LedgerRow,
  type ProviderReconciliation,
  type ProviderReport,
  type ReconciledCell,
} from './reconcile';
export * from './report-formats';
export { reconciliationView, type ReconciliationRecord, type ReconciliationView } from './view';
