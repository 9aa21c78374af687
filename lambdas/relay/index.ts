/** The relay: transport-agnostic core, node:http and Lambda streaming adapters, the proxy event. */
export { registryPriceUsd, Relay } from './relay';
export type { RelayOptions, RelayOutcome, RelayRequest, RelayResponder, ResponseBody } from './relay';
export {
  API_KEY_HEADER,
  clientResponseHeaders,
  CONTEXT_HEADERS,
  HOP_BY_HOP,
  ORIGIN_SECRET_HEADER,
  upstreamRequestHeaders,
} from './headers';
export type { HeaderBag, HeaderValue } from './headers';
export { RelayKeyAuth } from './key-auth';
export { InlineLoopCheck, refusalOf } from './loop-check';
export type { InlineLoopCheckOptions, LoopCount, LoopGate } from './loop-check';
export { OrgPolicyCache, POLICY_CACHE_TTL_MS } from './org-policy-cache';
export type { OrgPolicyCacheOptions, OrgPolicySource } from './org-policy-cache';
export type { KeyCheck, KeyVerifier } from './key-auth';
export { buildTelemetryEvent, envelopeFor, toProxyEvent } from './proxy-event';
export type { ProxyCall } from './proxy-event';
export { DEFAULT_MAX_JSON_BYTES, UsageTap } from './usage-tap';
export type { TapResult, UsageTapOptions } from './usage-tap';
export {
  clientGoneHook,
  DEFAULT_MAX_REQUEST_BYTES,
  nodeResponder,
  readBody,
  relayNodeRequest,
} from './node-adapter';
export { createStreamingHandler, lambdaResponder, lambdaRuntime, toRelayRequest } from './lambda-adapter';
export type {
  AwsLambdaRuntime,
  HttpResponseMetadata,
  LambdaResponseStream,
  StreamingHandler,
  StreamingHandlerOptions,
} from './lambda-adapter';
