/**
 * `POST /api/ingest` (spec 2.3, 4.1): events posted by any client with token counts only.
 *
 * Required per event: `model` and `usage.prompt_tokens` / `usage.completion_tokens`; the rest is
 * optional (the server stamps a missing timestamp with the receive time and infers a missing
 * provider from the model). Prompts and completions are never read; the only dollar amount read is
 * `usage.cost`, what the provider reported charging (OpenRouter's usage object carries it), which the
 * server takes as the call's cost.
 * Unknown fields are dropped, so a provider's usage object can be passed as it is
 * (`prompt_tokens_details` and the like are ignored). Parsing builds fresh objects holding only the
 * known fields: `__proto__` or `constructor` members in the JSON never reach the result.
 * @module
 */
import { z } from 'zod';
import { enforcementStateSchema } from './enforcement-state';
import {
  expected,
  isoDateTime,
  label,
  modelId,
  plausibleCallTokens,
  providerId,
  tokenCount,
  usdAmount,
} from './common';

/** Most events in one ingest request (spec 4.1, 8). */
export const MAX_INGEST_EVENTS = 100;

export const ingestUsageSchema = z
  .object(
    {
      prompt_tokens: tokenCount('Prompt tokens, cache reads and writes included (OpenAI semantics).'),
      completion_tokens: tokenCount('Completion tokens, reasoning tokens included.', 350),
      total_tokens: tokenCount('Total tokens (informational).', 1550).optional(),
      cache_read_tokens: tokenCount('Prompt tokens served from the provider cache.', 0).optional(),
      cache_write_5m_tokens: tokenCount('Prompt tokens written to a 5-minute cache.', 0).optional(),
      cache_write_1h_tokens: tokenCount('Prompt tokens written to a 1-hour cache.', 0).optional(),
      reasoning_tokens: tokenCount('Reasoning tokens.', 0).optional(),
      cost: usdAmount(
        'What the provider reported charging, in USD (OpenRouter usage.cost): taken as the cost when present.',
      ).optional(),
      web_search_requests: tokenCount(
        'Server-side web searches billed per request (Anthropic).',
        0,
      ).optional(),
    },
    { error: expected('a usage object { prompt_tokens, completion_tokens }') },
  )
  .superRefine((u, ctx) =>
    plausibleCallTokens(u.prompt_tokens, u.completion_tokens, ['completion_tokens'], ctx),
  )
  .meta({ description: 'Token usage of one call.' });
export type IngestUsage = z.infer<typeof ingestUsageSchema>;

export const ingestEventSchema = z
  .object({
    model: modelId(),
    usage: ingestUsageSchema,
    timestamp: isoDateTime('When the call happened; the receive time when absent.').optional(),
    eventId: z
      .string({ error: expected('evt_<id>') })
      .regex(/^evt_[A-Za-z0-9_-]{1,64}$/, { error: 'expected evt_<id> (letters, digits, - and _)' })
      .meta({ description: 'Client-side event id, evt_<id>; repeats are ignored.', example: 'evt_01HZX3' })
      .optional(),
    featureId: label('Feature label for cost attribution.', 'summarize').optional(),
    projectId: label('Project label.', 'checkout-bot').optional(),
    sessionId: label('Agent session, for the context-growth guardrail (layer 3).', 'sess_42').optional(),
    provider: providerId('Provider identifier; inferred from the model when absent.').optional(),
  })
  .meta({ description: 'Ingest event (spec 2.3).' });
export type IngestEvent = z.infer<typeof ingestEventSchema>;

export const ingestRequestSchema = z
  .object({
    apiKey: z
      .string({ error: expected('the organization API key') })
      .max(128, { error: 'must be at most 128 characters' })
      .startsWith('abn_', { error: 'expected an API key starting with abn_' })
      .meta({ description: 'Organization API key (abn_…).' }),
    events: z
      .array(ingestEventSchema, { error: expected('an array of events') })
      .min(1, { error: 'send at least one event' })
      .max(MAX_INGEST_EVENTS, { error: `a batch holds at most ${MAX_INGEST_EVENTS} events` }),
  })
  .meta({ description: 'Body of POST /api/ingest.' });
export type IngestRequest = z.infer<typeof ingestRequestSchema>;

/** Optional event members a client may send as null ("not set"), as JSON serializers often write them. */
const NULLABLE_EVENT_MEMBERS = ['timestamp', 'eventId', 'featureId', 'projectId', 'sessionId', 'provider'];

/**
 * The body of `POST /api/ingest` in its batch form: spec 4.1 ingests "a single event or a batch", so an
 * event sent on its own (`{apiKey, model, usage, …}`, no `events`) is a batch of one; and an optional
 * member sent as null is absent. Anything else is returned as it came, for the schema to judge.
 */
export function ingestBatchOf(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  let batch: Record<string, unknown> = record;
  if (!('events' in record) && ('model' in record || 'usage' in record)) {
    const { apiKey, ...event } = record;
    batch = { ...(apiKey === undefined ? {} : { apiKey }), events: [event] };
  }
  if (!Array.isArray(batch.events)) return batch;
  return {
    ...batch,
    events: batch.events.map((event: unknown) =>
      typeof event === 'object' && event !== null && !Array.isArray(event)
        ? Object.fromEntries(
            Object.entries(event).filter(([k, v]) => !(v === null && NULLABLE_EVENT_MEMBERS.includes(k))),
          )
        : event,
    ),
  };
}

export const ingestResponseSchema = z
  .strictObject({
    status: z.literal('ok'),
    count: z.int().min(0).meta({ description: 'Number of events accepted.' }),
    enforcement: enforcementStateSchema,
  })
  .meta({ description: 'Response of POST /api/ingest and POST /v1/events.' });
export type IngestResponse = z.infer<typeof ingestResponseSchema>;
