import { inferProvider } from './infer-provider';
import type { TelemetryEvent } from './telemetry-event';

/**
 * Maps the validated wire forms onto the one internal event. The inputs are described structurally (the
 * fields read here), so these functions accept exactly what core/schemas produces for spec 2.1 and 2.3.
 */

type Opt<T> = T | null | undefined;

/** The SDK's client event (spec 2.1) and its optional extensions. */
export interface ClientEventFields {
  id: string;
  timestamp: string;
  provider: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  estimatedCostUsd?: Opt<number>;
  latencyMs?: Opt<number>;
  statusCode?: Opt<number>;
  projectId?: Opt<string>;
  environment?: Opt<string>;
  fingerprint?: Opt<string>;
  sessionId?: Opt<string>;
  featureId?: Opt<string>;
  cacheReadTokens?: Opt<number>;
  cacheWrite5mTokens?: Opt<number>;
  cacheWrite1hTokens?: Opt<number>;
  reasoningTokens?: Opt<number>;
  providerCostUsd?: Opt<number>;
  webSearchRequests?: Opt<number>;
  serviceTier?: Opt<string>;
  estimated?: Opt<boolean>;
  stream?: Opt<boolean>;
  leased?: Opt<boolean>;
  requestedModel?: Opt<string>;
  endpoint?: Opt<string>;
  kind?: Opt<'call' | 'budget_warning'>;
}

/** An ingest event (spec 2.3): token counts only, no dollar amounts. */
export interface IngestEventFields {
  model: string;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    cache_read_tokens?: Opt<number>;
    cache_write_5m_tokens?: Opt<number>;
    cache_write_1h_tokens?: Opt<number>;
    reasoning_tokens?: Opt<number>;
    cost?: Opt<number>;
    web_search_requests?: Opt<number>;
  };
  timestamp?: Opt<string>;
  eventId?: Opt<string>;
  featureId?: Opt<string>;
  projectId?: Opt<string>;
  sessionId?: Opt<string>;
  provider?: Opt<string>;
}

/**
 * A client's dollar figure rounded to the nano-dollar, the precision of all money here. Also keeps it
 * storable: DynamoDB refuses numbers under 1e-130, so a denormal such as 5e-324 (valid JSON, accepted
 * by the schema) once failed its Kinesis record on every retry.
 */
function toNanoPrecision(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}

const n = (v: Opt<number>): number => (typeof v === 'number' ? v : 0);
const s = (v: Opt<string>): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

export function fromClientEvent(e: ClientEventFields): TelemetryEvent {
  return {
    eventId: e.id,
    ts: Date.parse(e.timestamp),
    source: 'sdk',
    kind: e.kind ?? 'call',
    provider: e.provider,
    model: e.model,
    ...(s(e.requestedModel) !== null ? { requestedModel: s(e.requestedModel) } : {}),
    inputTokens: e.promptTokens,
    cacheReadTokens: n(e.cacheReadTokens),
    cacheWrite5mTokens: n(e.cacheWrite5mTokens),
    cacheWrite1hTokens: n(e.cacheWrite1hTokens),
    outputTokens: e.completionTokens,
    reasoningTokens: n(e.reasoningTokens),
    serviceTier: s(e.serviceTier),
    estimated: e.estimated === true,
    clientCostUsd: typeof e.estimatedCostUsd === 'number' ? toNanoPrecision(e.estimatedCostUsd) : null,
    providerCostUsd: typeof e.providerCostUsd === 'number' ? toNanoPrecision(e.providerCostUsd) : null,
    webSearchRequests: n(e.webSearchRequests),
    latencyMs: typeof e.latencyMs === 'number' ? Math.round(e.latencyMs) : null,
    statusCode: typeof e.statusCode === 'number' ? e.statusCode : null,
    projectId: s(e.projectId),
    environment: s(e.environment),
    featureId: s(e.featureId),
    sessionId: s(e.sessionId),
    fingerprint: s(e.fingerprint),
    endpoint: s(e.endpoint),
    stream: typeof e.stream === 'boolean' ? e.stream : null,
    verified: true,
    // The sender's own word: it can only take its own calls out of the unleased figure, which it could
    // equally do by not sending them (docs/admission.md, "One accounting").
    ...(e.leased === true ? { leased: true } : {}),
  };
}

/**
 * An ingest event. Without `eventId` the server assigns a random one, so only events that carry an
 * `eventId` are idempotent (send it to make retries safe). Without `timestamp`, the time of receipt.
 */
export function fromIngestEvent(
  e: IngestEventFields,
  receivedAt: number,
  newId: () => string,
): TelemetryEvent {
  const u = e.usage;
  return {
    eventId: s(e.eventId) ?? `evt_${newId()}`,
    ts: e.timestamp ? Date.parse(e.timestamp) : receivedAt,
    source: 'ingest',
    kind: 'call',
    provider: s(e.provider) ?? inferProvider(e.model),
    model: e.model,
    inputTokens: u.prompt_tokens,
    cacheReadTokens: n(u.cache_read_tokens),
    cacheWrite5mTokens: n(u.cache_write_5m_tokens),
    cacheWrite1hTokens: n(u.cache_write_1h_tokens),
    outputTokens: u.completion_tokens,
    reasoningTokens: n(u.reasoning_tokens),
    serviceTier: null,
    estimated: false,
    clientCostUsd: null,
    providerCostUsd: typeof u.cost === 'number' ? u.cost : null,
    webSearchRequests: n(u.web_search_requests),
    latencyMs: null,
    statusCode: null,
    projectId: s(e.projectId),
    environment: null,
    featureId: s(e.featureId),
    sessionId: s(e.sessionId),
    fingerprint: null,
    endpoint: null,
    stream: null,
    verified: true,
  };
}
