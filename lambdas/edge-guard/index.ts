/** The edge guard: pure decision, guard with cache, CloudFront adapter, baked-in config, metrics. */
export {
  budgetExceeded,
  decide,
  FORWARD,
  MISSING_KEY_RESPONSE,
  rateLimited,
  toFlagLookup,
  toFlagLookupOfItems,
  UNAUTHORIZED_DECISION,
} from './decide';
export type { DecideContext, FailOpenReason, FlagLookup, GuardDecision, GuardResponse } from './decide';
export { FlagCache } from './flag-cache';
export { DEFAULT_GUARD_CACHE_TTL_MS, EdgeGuard, flagSourceFromStore } from './guard';
export type { EdgeGuardOptions, FlagSource } from './guard';
export { DEFAULT_THROTTLE_POLICY, throttleBuckets } from './throttle';
export type { ThrottlePolicy } from './throttle';
export { EmfMetrics, MemoryMetrics, noopMetrics } from './metrics';
export type { EmfMetricsOptions, MetricName, MetricsSink } from './metrics';
export {
  bakedConfig,
  EdgeConfigError,
  esbuildDefineFor,
  parseEdgeGuardConfig,
  replicaRegionFor,
} from './config';
export type { EdgeGuardConfig, EdgeGuardConfigInput } from './config';
export { createOriginRequestHandler, toCloudFrontResponse } from './cloudfront-adapter';
export { DynamoFlagSource } from './dynamo-flag-source';
