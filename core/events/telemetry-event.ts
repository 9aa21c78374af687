import { z } from 'zod';

/**
 * The one internal form of a telemetry event, whatever its source: the SDK's client event (spec 2.1),
 * the proxy event (spec 2.2) or an ingest event (spec 2.3) are all mapped into it at the edge of the
 * system, so that the consumers know a single shape. Token counts follow core/usage conventions
 * (input includes cache tokens, output includes reasoning). Never carries prompts or completions.
 */
const count = z.number().int().nonnegative().max(1e12);
const label = z.string().max(256);

export const telemetryEventSchema = z.object({
  eventId: z.string().min(1).max(128),
  /** Time of the provider call, ms since the epoch. */
  ts: z.number().int().nonnegative(),
  source: z.enum(['sdk', 'proxy', 'ingest']),
  /** `budget_warning`: the SDK's warn action (spec 1.4) — recorded in the ledger, never priced. */
  kind: z.enum(['call', 'budget_warning']),
  provider: label,
  /** The model that answered (the provider's name for it), else the one the request named. */
  model: label,
  /**
   * The model the request named, when the sender saw it (`gen_ai.request.model`); `model` may differ
   * (a dated snapshot, or a model the request did not ask for). Absent in older records.
   */
  requestedModel: label.nullable().optional(),
  inputTokens: count,
  cacheReadTokens: count,
  cacheWrite5mTokens: count,
  cacheWrite1hTokens: count,
  outputTokens: count,
  reasoningTokens: count,
  serviceTier: label.nullable(),
  estimated: z.boolean(),
  /** The client's own dollar figure, kept only to report discrepancy (design decision 9). */
  clientCostUsd: z.number().finite().nonnegative().nullable(),
  /**
   * What the provider itself billed, in USD, when it says (OpenRouter `usage.cost`, xAI): pricing takes
   * it as the call's cost (`costSource: PROVIDER_REPORTED`).
   */
  providerCostUsd: z.number().finite().nonnegative().nullable(),
  /** Server-side web searches billed per request beyond tokens (Anthropic); absent in older records = 0. */
  webSearchRequests: count.optional(),
  latencyMs: z.number().int().nonnegative().nullable(),
  statusCode: z.number().int().min(0).max(999).nullable(),
  projectId: label.nullable(),
  environment: label.nullable(),
  featureId: label.nullable(),
  sessionId: label.nullable(),
  fingerprint: label.nullable(),
  endpoint: z.string().max(1024).nullable(),
  stream: z.boolean().nullable(),
  /** False when the proxy forwarded without being able to verify the key (store unreachable). */
  verified: z.boolean(),
  /**
   * True when a budget lease already counted the call's cost (the relay settled it into its slice, or the
   * SDK reported it with its lease): the admission counter holds it, so the pipeline's unleased figure
   * leaves it out and nothing is counted twice (issue 18.2). Absent: false.
   */
  leased: z.boolean().optional(),
});
export type TelemetryEvent = z.infer<typeof telemetryEventSchema>;

/**
 * One Kinesis record: the events of one organization from one request, partition key = orgId.
 * `keyId` is the public id of the API key that sent them (never the secret).
 */
export const eventEnvelopeSchema = z.object({
  v: z.literal(1),
  orgId: label,
  keyId: label,
  receivedAt: z.number().int().nonnegative(),
  events: z.array(telemetryEventSchema).min(1),
});
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;
