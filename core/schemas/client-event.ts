/**
 * The client telemetry event (spec 2.1): what the SDK posts, in batches, to `POST /v1/events`.
 *
 * Required: every field of spec 2.1 except `projectId` (default `default`) and `environment`
 * (default `production`). Optional: the extensions (cache and reasoning tokens, fingerprint,
 * session, feature, …). Unknown fields are dropped (a newer SDK can talk to an older server).
 * The server prices every event itself; `estimatedCostUsd` and `costSource` are the client's own
 * figure, kept to report discrepancy.
 *
 * Token conventions (as core/usage): `promptTokens` includes cache reads and writes,
 * `completionTokens` includes reasoning tokens; `totalTokens` is informational.
 * @module
 */
import { z } from 'zod';
import {
  expected,
  costSourceSchema,
  environmentSchema,
  fingerprint,
  httpStatus,
  isoDateTime,
  label,
  plausibleCallTokens,
  latencyMs,
  modelId,
  providerId,
  tokenCount,
  usdAmount,
  MAX_ENDPOINT_LENGTH,
} from './common';

/** Most events in one `POST /v1/events` batch (spec 8). */
export const MAX_CLIENT_BATCH_EVENTS = 100;

/** What a client event records: an intercepted provider call, or the budget warning of spec 1.4 / 6. */
export const clientEventKindSchema = z
  .enum(['call', 'budget_warning'], { error: expected('call or budget_warning') })
  .meta({
    description:
      'call: an intercepted provider call; budget_warning: the warn action of the client budget (spec 1.4).',
  });
export type ClientEventKind = z.infer<typeof clientEventKindSchema>;

export const clientEventSchema = z
  .object({
    id: z
      .uuidv4({ error: expected('a UUID v4') })
      .meta({ description: 'Client-generated event id (UUID v4); repeats are ignored.' }),
    timestamp: isoDateTime('When the provider call started.'),
    provider: providerId(),
    model: modelId(),
    promptTokens: tokenCount('Prompt tokens, cache reads and writes included.'),
    completionTokens: tokenCount('Completion tokens, reasoning tokens included.', 350),
    totalTokens: tokenCount('Total tokens as reported (informational).', 1550),
    estimatedCostUsd: usdAmount("The client's cost estimate in USD (the server prices the event itself)."),
    costSource: costSourceSchema,
    latencyMs: latencyMs('Time from request to the last response byte, in milliseconds.'),
    statusCode: httpStatus('HTTP status of the provider call; 0 when no response arrived.'),
    projectId: label('Project of the calling application.', 'checkout-bot').default('default'),
    environment: environmentSchema.default('production'),

    kind: clientEventKindSchema.default('call'),
    fingerprint: fingerprint().optional(),
    sessionId: label('Agent session, for the context-growth guardrail (layer 3).', 'sess_42').optional(),
    featureId: label('Feature label for cost attribution.', 'summarize').optional(),
    cacheReadTokens: tokenCount(
      'Prompt tokens served from the provider cache (part of promptTokens).',
      0,
    ).optional(),
    cacheWrite5mTokens: tokenCount(
      'Prompt tokens written to a 5-minute cache (part of promptTokens).',
      0,
    ).optional(),
    cacheWrite1hTokens: tokenCount(
      'Prompt tokens written to a 1-hour cache (part of promptTokens).',
      0,
    ).optional(),
    reasoningTokens: tokenCount('Reasoning tokens (part of completionTokens).', 0).optional(),
    providerCostUsd: usdAmount(
      'What the provider reported charging for the call (OpenRouter usage.cost), in USD; the server takes it as the cost.',
    ).optional(),
    webSearchRequests: tokenCount(
      'Server-side web searches billed per request beyond tokens (Anthropic server_tool_use).',
      0,
    ).optional(),
    serviceTier: label('Service tier (default, flex, priority, batch, …).', 'default', 64).optional(),
    estimated: z
      .boolean({ error: expected('true or false') })
      .meta({ description: 'True when token counts were estimated (a stream that ended without usage).' })
      .optional(),
    stream: z
      .boolean({ error: expected('true or false') })
      .meta({ description: 'Whether the response was streamed.' })
      .optional(),
    endpoint: label(
      'Provider endpoint path, e.g. /v1/chat/completions.',
      '/v1/chat/completions',
      MAX_ENDPOINT_LENGTH,
    ).optional(),
    requestedModel: label(
      'The model the request named, when it differs from or precedes `model` (the one that answered).',
      'gpt-4o',
    ).optional(),
    droppedEvents: tokenCount('Events the client dropped (buffer full) before this one.', 0).optional(),
    leased: z
      .boolean({ error: expected('true or false') })
      .meta({
        description:
          'True when the call was admitted under a budget lease and its cost reported with the lease (POST /v1/budget/lease): the admission counter already holds it, so it is not counted again.',
      })
      .optional(),
  })
  .superRefine((e, ctx) => plausibleCallTokens(e.promptTokens, e.completionTokens, ['completionTokens'], ctx))
  .meta({ description: 'Client telemetry event (spec 2.1).' });
/** A client event as received (defaults not yet applied). */
export type ClientEventInput = z.input<typeof clientEventSchema>;
/** A validated client event. */
export type ClientEvent = z.infer<typeof clientEventSchema>;

export const clientEventBatchSchema = z
  .object({
    events: z
      .array(clientEventSchema, { error: expected('an array of events') })
      .min(1, { error: 'a batch holds at least one event' })
      .max(MAX_CLIENT_BATCH_EVENTS, { error: `a batch holds at most ${MAX_CLIENT_BATCH_EVENTS} events` }),
    droppedEvents: tokenCount('Events the client dropped since its last successful flush.', 0).optional(),
  })
  .meta({ description: 'Body of POST /v1/events.' });
export type ClientEventBatch = z.infer<typeof clientEventBatchSchema>;
