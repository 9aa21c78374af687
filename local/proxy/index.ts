/** The local proxy (CloudFront + Lambda@Edge + relay on one machine) and its in-memory test doubles. */
export { createLocalProxy, DEFAULT_PROXY_PORT } from './local-proxy';
export type { LocalProxy, LocalProxyOptions } from './local-proxy';
export { upstreamEnvName, upstreamsFromEnv } from './env';
export { MemoryApiKeyStore, MemoryEventSink, MemoryFlagStore } from './memory-stores';
