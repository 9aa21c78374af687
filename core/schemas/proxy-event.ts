/**
 * The proxy telemetry event (spec 2.2): one per request through the edge proxy, produced by the
 * relay. Field names are the specification's (snake_case). Internal: the relay is the only
 * producer, so unknown fields are refused rather than dropped.
 * @module
 */
import { z } from 'zod';
import {
  expected,
  fingerprint,
  httpStatus,
  isoUtcMillis,
  label,
  latencyMs,
  modelId,
  providerId,
  tokenCount,
  usdAmount,
  MAX_ENDPOINT_LENGTH,
} from './common';

export const proxyEventSchema = z
  .strictObject({
    ts: isoUtcMillis('When the request arrived: ISO 8601, UTC, milliseconds.'),
    org_id: z
      .string({ error: expected('org_<id>') })
      .regex(/^org_[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, { error: 'expected org_<id>' })
      .meta({ description: 'Organization, org_<id>.', example: 'org_acme' }),
    provider: providerId(),
    model: modelId(),
    endpoint: label('Provider endpoint path.', '/v1/chat/completions', MAX_ENDPOINT_LENGTH).regex(/^\//, {
      error: 'expected a path starting with /',
    }),
    status: httpStatus('HTTP status returned to the client.'),
    tokens_in: tokenCount('Prompt tokens, cache reads and writes included.'),
    tokens_out: tokenCount('Completion tokens, reasoning included.', 350),
    cost_usd: usdAmount("The relay's cost figure (the provider's when it reports one); the server reprices."),
    latency_ms: latencyMs('Time from request to the last response byte.'),
    fingerprint: fingerprint()
      .nullable()
      .meta({ description: 'Body fingerprint; null when the body was not JSON.' }),
    stream: z
      .boolean({ error: expected('true or false') })
      .meta({ description: 'Whether the response was streamed (SSE).' }),
    estimated: z
      .boolean({ error: expected('true or false') })
      .meta({ description: 'True when usage was estimated (no final usage frame): est / ~est.' }),
    key_prefix: z
      .string({ error: expected('an API key prefix abn_<publicId>') })
      .regex(/^abn_[a-z0-9]{12}$/, { error: 'expected an API key prefix abn_<publicId>' })
      .meta({ description: 'Prefix of the API key used (never the key).', example: 'abn_k3v9x0q2m7za' }),
    verified: z
      .boolean({ error: expected('true or false') })
      .meta({ description: 'False when the relay could not verify the key (fail open).' }),
    event_id: z.uuid({ error: expected('a UUID') }).meta({ description: 'Event id assigned by the relay.' }),
    session_id: label('Agent session, when the client sent one.').optional(),
    cache_read_tokens: tokenCount('Prompt tokens served from cache (part of tokens_in).', 0).default(0),
    cache_write_5m_tokens: tokenCount(
      'Prompt tokens written to a 5-minute cache (part of tokens_in).',
      0,
    ).default(0),
    cache_write_1h_tokens: tokenCount(
      'Prompt tokens written to a 1-hour cache (part of tokens_in).',
      0,
    ).default(0),
    reasoning_tokens: tokenCount('Reasoning tokens (part of tokens_out).', 0).default(0),
    service_tier: label('Service tier reported or requested.', 'default', 64).nullable().optional(),
    provider_cost_usd: usdAmount(
      'What the provider reported charging (OpenRouter usage.cost); null when it reports nothing.',
    )
      .nullable()
      .optional(),
    web_search_requests: tokenCount('Server-side web searches billed per request (Anthropic).', 0).optional(),
  })
  .meta({ description: 'Proxy telemetry event (spec 2.2).' });
export type ProxyEventInput = z.input<typeof proxyEventSchema>;
export type ProxyEvent = z.infer<typeof proxyEventSchema>;
