/**
 * `@service/sdk`: records the tokens and cost of every AI provider call an application makes, and
 * enforces a client-side budget. Zero runtime dependencies; Node.js 20+, AWS Lambda, Deno, Bun, edge
 * runtimes and browsers. See docs/sdk.md.
 */
export { flush, getServiceClient, initServiceAuto, instrumentAwsClient, shutdown, wrapFetch } from './api';
export { SpendguardRefusalError } from './aws-client';
export { verifyService } from './verify';
export { spendguardMiddleware, withSpendguard } from './lambda';
export type { LambdaFlushOptions, MiddyRequestLike, SpendguardMiddleware } from './lambda';
export type {
  BudgetAction,
  BudgetOptions,
  ClientEvent,
  ClientStats,
  Environment,
  EventLabels,
  FetchLike,
  FlushOptions,
  FlushResult,
  InitOptions,
  OrgStatus,
  ServiceOptions,
  SpendguardClient,
  VerifyCheck,
  VerifyOptions,
  VerifyResult,
  WrapFetchOptions,
} from './types';
