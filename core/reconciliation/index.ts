/**
 * core/reconciliation: the ledger against the providers' own usage and cost reports (issue 13.5).
 * Pure: the reports come in parsed, the ledger rows come in read. See docs/reconciliation.md.
 */
export {
  BEDROCK_METRICS_NAMESPACE,
  BEDROCK_METRICS_PERIOD_SECONDS,
  BEDROCK_MODEL_DIMENSION,
  BEDROCK_TOKEN_METRICS,
  bedrockDayUsage,
  bedrockMetricQueries,
  inBatches,
  MAX_METRIC_QUERIES_PER_CALL,
  priceBedrockDayUsage,
  type BedrockDayUsage,
  type BedrockMetricQuery,
  type BedrockMetricQueryPlan,
  type BedrockMetricResult,
} from './bedrock-metrics';
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
export {
  isReconciledProvider,
  isReconciliationSource,
  RECONCILED_PROVIDERS,
  RECONCILIATION_SOURCES,
  type ReconciledProvider,
  type ReconciliationSource,
} from './providers';
export {
  agreementPercent,
  DEFAULT_TOLERANCE_NANOS,
  reconcile,
  windowDays,
  type LedgerRow,
  type ProviderFigureSource,
  type ProviderReconciliation,
  type ProviderReport,
  type ReconciledCell,
} from './reconcile';
export * from './report-formats';
export { reconciliationView, type ReconciliationRecord, type ReconciliationView } from './view';
