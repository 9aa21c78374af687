/**
 * The one telemetry event the relay records per request: built from what the relay saw, put on the
 * stream as an {@link EventEnvelope} (source `proxy`), and mappable to the spec 2.2 wire shape.
 */
import type { EventEnvelope, TelemetryEvent } from '../../core/events/telemetry-event';
import type { NormalizedUsage } from '../../core/usage';

/** Spec 2.2: the proxy telemetry event as the specification names its fields. */
export interface ProxyEvent {
  /** ISO 8601 with milliseconds, UTC. */
  ts: string;
  /** `org_<id>` */
  org_id: string;
  provider: string;
  model: string;
  endpoint: string;
  status: number;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number;
  latency_ms: number;
  /** `sha256:<hex>`; empty when the body could not be fingerprinted (not JSON, no prompt members). */
  fingerprint: string;
  stream: boolean;
}

/**
 * The spec 2.2 form of a proxy event. `cost_usd` is the relay's own figure (the provider's when it
 * reports one, as OpenRouter does), 0 when it has none: the server prices every event itself.
 *
 * @example
 * toProxyEvent('org_acme', event)
 * // { ts: '2026-11-22T10:00:00.000Z', org_id: 'org_acme', provider: 'openai', model: 'gpt-4o-mini',
 * //   endpoint: '/v1/chat/completions', status: 200, tokens_in: 12, tokens_out: 8, cost_usd: 0, … }
 */
export function toProxyEvent(orgId: string, event: TelemetryEvent): ProxyEvent {
  return {
    ts: new Date(event.ts).toISOString(),
    org_id: orgId,
    provider: event.provider,
    model: event.model,
    endpoint: event.endpoint ?? '',
    status: event.statusCode ?? 0,
    tokens_in: event.inputTokens,
    tokens_out: event.outputTokens,
    cost_usd: event.clientCostUsd ?? event.providerCostUsd ?? 0,
    latency_ms: event.latencyMs ?? 0,
    fingerprint: event.fingerprint ?? '',
    stream: event.stream ?? false,
  };
}

/** What the relay knows when a request has finished. */
export interface ProxyCall {
  readonly eventId: string;
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
  /** Prompt tokens estimated from the request, used when a successful call has no readable usage. */
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
 * - a successful call without readable usage → the prompt estimated from the request, output 0, estimated;
 * - a provider error (status ≥ 400) → zero tokens, not estimated (providers do not bill errors).
 */
export function buildTelemetryEvent(call: ProxyCall): TelemetryEvent {
  const u = call.usage;
  const failed = call.statusCode >= 400;
  const inputTokens = u?.inputTokens ?? (failed ? 0 : call.estimatedInputTokens());
  return {
    eventId: call.eventId,
    ts: call.startedAt,
    source: 'proxy',
    kind: 'call',
    provider: call.provider,
    model: label(u?.model ?? call.requestedModel ?? 'unknown') as string,
    inputTokens,
    cacheReadTokens: u?.cacheReadTokens ?? 0,
    cacheWrite5mTokens: u?.cacheWrite5mTokens ?? 0,
    cacheWrite1hTokens: u?.cacheWrite1hTokens ?? 0,
    outputTokens: u?.outputTokens ?? 0,
    reasoningTokens: u?.reasoningTokens ?? 0,
    serviceTier: label(u?.serviceTier ?? null),
    estimated: u !== undefined ? u.estimated || call.cut : !failed,
    clientCostUsd: call.clientCostUsd,
    providerCostUsd: u?.providerCostUsd != null && u.providerCostUsd >= 0 ? u.providerCostUsd : null,
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
  };
}

/** One envelope per request (partition key = orgId). */
export function envelopeFor(orgId: string, keyId: string, event: TelemetryEvent, receivedAt: number): EventEnvelope {
  return { v: 1, orgId, keyId, receivedAt, events: [event] };
}
