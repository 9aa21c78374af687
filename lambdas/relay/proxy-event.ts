/**
 * The one telemetry event the relay records per request: built from what the relay saw, put on the
 * stream as an {@link EventEnvelope} (source `proxy`), and mappable to the spec 2.2 wire shape.
 */
import type { EventEnvelope, TelemetryEvent } from '../../core/events/telemetry-event';
import type { ProxyEvent } from '../../core/schemas';
import type { NormalizedUsage } from '../../core/usage';

/**
 * The spec 2.2 form of a proxy event (validated by core/schemas `proxyEventSchema`). `cost_usd` is what
 * the provider reported (OpenRouter), else the relay's own price from the bundled registry, else 0:
 * the server prices every event itself. `key_prefix` is `abn_<keyId>`, never the key.
 *
 * @example
 * toProxyEvent(envelope)
 * // { ts: '2026-11-22T10:00:00.000Z', org_id: 'org_acme', provider: 'openai', model: 'gpt-4o-mini',
 * //   endpoint: '/v1/chat/completions', status: 200, tokens_in: 12, tokens_out: 8, cost_usd: 0.0000036,
 * //   latency_ms: 412, fingerprint: 'sha256:…', stream: true, estimated: false, key_prefix: 'abn_…', … }
 */
export function toProxyEvent(
  envelope: EventEnvelope,
  event: TelemetryEvent | undefined = envelope.events[0],
): ProxyEvent {
  if (event === undefined) throw new RangeError('the envelope has no event');
  return {
    ts: new Date(event.ts).toISOString(),
    org_id: envelope.orgId,
    provider: event.provider,
    model: event.model,
    endpoint: event.endpoint ?? '/',
    status: event.statusCode ?? 0,
    tokens_in: event.inputTokens,
    tokens_out: event.outputTokens,
    cost_usd: event.providerCostUsd ?? event.clientCostUsd ?? 0,
    latency_ms: event.latencyMs ?? 0,
    fingerprint: event.fingerprint,
    stream: event.stream ?? false,
    estimated: event.estimated,
    key_prefix: `abn_${envelope.keyId}`,
    verified: event.verified,
    event_id: event.eventId,
    ...(event.sessionId !== null ? { session_id: event.sessionId } : {}),
    cache_read_tokens: event.cacheReadTokens,
    cache_write_5m_tokens: event.cacheWrite5mTokens,
    cache_write_1h_tokens: event.cacheWrite1hTokens,
    reasoning_tokens: event.reasoningTokens,
    service_tier: event.serviceTier,
    provider_cost_usd: event.providerCostUsd,
    web_search_requests: event.webSearchRequests ?? 0,
  };
}

/** What the relay knows when a request has finished. */
export interface ProxyCall {
  readonly eventId: string;
  /** The call's cost settles into a capped budget lease (TelemetryEvent.leased). @default false */
  readonly leased?: boolean;
  /** When the request arrived, ms. */
  readonly startedAt: number;
  /** When the last response byte was written (or the call was cut), ms. */
  readonly endedAt: number;
  readonly provider: string;
  /** The model the request named, when the response does not tell. */
  readonly requestedModel: string | null;
  /** Provider path without the query, e.g. `/v1/chat/completions`. */
  readonly endpoint: string;
  /** HTTP status the client received. */
  readonly statusCode: number;
  /** Usage read from the response, or undefined when there is none. */
  readonly usage: NormalizedUsage | undefined;
  /**
   * Whether the provider handled the request, so that a call without readable usage still cost
   * something: true for answered calls below 400 and for calls the client cut before the answer.
   */
  readonly billable: boolean;
  /** Prompt tokens estimated from the request, used when a billable call has no readable usage. */
  readonly estimatedInputTokens: () => number;
  readonly stream: boolean;
  /** The client went away or the upstream broke off before the end. */
  readonly cut: boolean;
  readonly fingerprint: string | null;
  readonly verified: boolean;
  readonly clientCostUsd: number | null;
  readonly context: {
    readonly sessionId: string | null;
    readonly projectId: string | null;
    readonly environment: string | null;
    readonly featureId: string | null;
  };
}

const MAX_LABEL = 256;
const label = (s: string | null): string | null => (s === null ? null : s.slice(0, MAX_LABEL));

/**
 * The internal event for a finished call:
 * - usage read → its figures (estimated when the stream had no usage frame, or when the call was cut:
 *   the provider bills what it generated until it noticed, which the relay cannot know);
 * - a billable call without readable usage → the prompt estimated from the request, output 0, estimated;
 * - a provider error (status ≥ 400) or an unreachable upstream → zero tokens, not estimated
 *   (providers do not bill errors).
 */
export function buildTelemetryEvent(call: ProxyCall): TelemetryEvent {
  const u = call.usage;
  const inputTokens = u?.inputTokens ?? (call.billable ? call.estimatedInputTokens() : 0);
  return {
    eventId: call.eventId,
    ts: call.startedAt,
    source: 'proxy',
    kind: 'call',
    provider: call.provider,
    model: label(u?.model ?? call.requestedModel ?? 'unknown') as string,
    ...(call.requestedModel !== null ? { requestedModel: label(call.requestedModel) } : {}),
    inputTokens,
    cacheReadTokens: u?.cacheReadTokens ?? 0,
    cacheWrite5mTokens: u?.cacheWrite5mTokens ?? 0,
    cacheWrite1hTokens: u?.cacheWrite1hTokens ?? 0,
    outputTokens: u?.outputTokens ?? 0,
    reasoningTokens: u?.reasoningTokens ?? 0,
    serviceTier: label(u?.serviceTier ?? null),
    estimated: u !== undefined ? u.estimated || call.cut : call.billable,
    clientCostUsd: call.clientCostUsd,
    providerCostUsd: u?.providerCostUsd != null && u.providerCostUsd >= 0 ? u.providerCostUsd : null,
    webSearchRequests: u?.webSearchRequests ?? 0,
    latencyMs: Math.max(0, Math.round(call.endedAt - call.startedAt)),
    statusCode: call.statusCode,
    projectId: label(call.context.projectId),
    environment: label(call.context.environment),
    featureId: label(call.context.featureId),
    sessionId: label(call.context.sessionId),
    fingerprint: call.fingerprint,
    endpoint: call.endpoint.slice(0, 1024),
    stream: call.stream,
    verified: call.verified,
    ...(call.leased === true ? { leased: true } : {}),
  };
}

/** One envelope per request (partition key = orgId). */
export function envelopeFor(
  orgId: string,
  keyId: string,
  event: TelemetryEvent,
  receivedAt: number,
): EventEnvelope {
  return { v: 1, orgId, keyId, receivedAt, events: [event] };
}
