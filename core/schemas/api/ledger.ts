/**
 * `GET /v1/ledger`: the Forensic Ledger, newest first, one page at a time. The entry is the stored
 * ledger row (core/ledger `LedgerEntry`: token counts and metadata of one call, never prompts or
 * completions) plus dollars computed at the edge.
 * @module
 */
import { z } from 'zod';
import { costSourceSchema } from '../common';
import { count, nanos, timestamp, usd } from './common';

/** Where an event came from: the SDK (`POST /v1/events`), the edge proxy, or `POST /api/ingest`. */
export const ledgerSourceSchema = z.enum(['sdk', 'proxy', 'ingest']).meta({
  description: 'sdk: POST /v1/events; proxy: the edge proxy; ingest: POST /api/ingest.',
  example: 'proxy',
});

/** Most entries in one page. */
export const MAX_LEDGER_PAGE = 500;

const isoTime = (description: string) =>
  z.iso.datetime({ offset: true }).meta({ description, example: '2026-04-09T00:00:00Z' });
const filter = (description: string, example: string, max: number) =>
  z.string().max(max).meta({ description, example });

/** Query of GET /v1/ledger. Unknown parameters are rejected so that a typo is not silently ignored. */
export const ledgerQuerySchema = z
  .strictObject({
    from: isoTime('Earliest call time (inclusive), ISO 8601.').optional(),
    to: isoTime('Latest call time (inclusive), ISO 8601.').optional(),
    provider: filter('Only this provider.', 'openai', 64).optional(),
    model: filter('Only this model.', 'gpt-4o-mini', 256).optional(),
    projectId: filter('Only this project.', 'checkout-bot', 256).optional(),
    featureId: filter('Only this feature.', 'summarize', 256).optional(),
    source: ledgerSourceSchema.optional(),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_LEDGER_PAGE)
      .default(50)
      .meta({ description: `Entries per page, 1 to ${MAX_LEDGER_PAGE}.`, example: 50 }),
    cursor: z
      .string()
      .max(2048)
      .meta({ description: 'nextCursor of the previous page.', example: 'eyJwayI6Im9yZ19hY21lIn0' })
      .optional(),
  })
  // DynamoDB answers BETWEEN with a lower bound above the upper one with an error (a 500), not nothing.
  .refine((q) => q.from === undefined || q.to === undefined || Date.parse(q.to) >= Date.parse(q.from), {
    path: ['to'],
    error: 'must not be before from',
  })
  .meta({ description: 'Query of GET /v1/ledger.' });
export type LedgerQuery = z.infer<typeof ledgerQuerySchema>;

const nullableLabel = (description: string, example: string) =>
  z
    .string()
    .nullable()
    .meta({ description: `${description} null when not sent.`, example });
const tokens = (description: string, example: number) => count(description, example);

/** One ledger entry as the API shows it: the stored row, with dollars. */
export const ledgerEntryViewSchema = z
  .strictObject({
    eventId: z
      .string()
      .meta({ description: 'Event id (the client id, or one assigned on receipt).', example: 'evt_01HZX3' }),
    ts: timestamp('Time of the call, UTC.'),
    source: ledgerSourceSchema,
    kind: z.enum(['call', 'budget_warning']).meta({
      description: 'call: a priced provider call; budget_warning: a soft-cap warning (never priced).',
      example: 'call',
    }),
    keyId: z
      .string()
      .meta({ description: 'Public id of the API key that sent the event.', example: 'k3v9x0q2m7za' }),
    provider: z.string().meta({ description: 'Provider identifier.', example: 'openai' }),
    model: z.string().meta({
      description: 'The model that answered (as the provider names it), else the one the request named.',
      example: 'gpt-4o-mini-2024-07-18',
    }),
    requestedModel: z.string().nullable().meta({
      description: 'The model the request named; null when the sender did not say (ingest, older rows).',
      example: 'gpt-4o-mini',
    }),
    inputTokens: tokens('Prompt tokens, cache reads and writes included.', 1200),
    cacheReadTokens: tokens('Prompt tokens served from the provider cache.', 0),
    cacheWrite5mTokens: tokens('Prompt tokens written to a 5-minute cache.', 0),
    cacheWrite1hTokens: tokens('Prompt tokens written to a 1-hour cache.', 0),
    outputTokens: tokens('Completion tokens, reasoning included.', 350),
    reasoningTokens: tokens('Reasoning tokens.', 0),
    webSearchRequests: tokens('Server-side web searches billed per request (Anthropic web search).', 0),
    costNanos: nanos(
      "The call's cost in integer nano-USD (exact; 0 for a budget warning): the provider-reported amount when there is one, else registryCostNanos.",
      390_000,
    ),
    costSource: costSourceSchema,
    registryCostNanos: nanos(
      'The price computed from rates (org rate, list price or fallback), tool fees included; differs from costNanos only when the provider reported its own figure.',
      390_000,
    ),
    toolFeesNanos: nanos('Fees beyond tokens (web searches), part of registryCostNanos.', 0),
    pricedAs: z.string().meta({
      description: 'Registry model that priced the call, `fallback:<family>`, or none.',
      example: 'gpt-4o-mini',
    }),
    clientCostUsd: z.number().nullable().meta({
      description: "The client's own estimate in USD, kept to report discrepancy; null when not sent.",
      example: 0.0004,
    }),
    providerCostUsd: z.number().nullable().meta({
      description: 'What the provider billed, when it says (OpenRouter); else null.',
      example: 0.00039,
    }),
    estimated: z
      .boolean()
      .meta({ description: 'True when token counts were estimated (est / ~est).', example: false }),
    latencyMs: z
      .number()
      .nullable()
      .meta({ description: 'Latency in milliseconds; null when not sent.', example: 850 }),
    statusCode: z
      .int()
      .nullable()
      .meta({ description: 'HTTP status of the provider call; null when not sent.', example: 200 }),
    projectId: nullableLabel('Project label;', 'checkout-bot'),
    environment: nullableLabel('Environment of the caller;', 'production'),
    featureId: nullableLabel('Feature label;', 'summarize'),
    sessionId: nullableLabel('Agent session;', 'sess_42'),
    endpoint: nullableLabel('Provider endpoint path;', '/v1/chat/completions'),
    stream: z
      .boolean()
      .nullable()
      .meta({ description: 'Whether the response was streamed; null when unknown.', example: false }),
    verified: z.boolean().meta({
      description: 'False when the proxy forwarded without verifying the key (fail open).',
      example: true,
    }),
    fingerprint: z.string().nullable().meta({
      description:
        'Fingerprint of the request (equal for identical prompts; never the prompt itself); null when none was computed.',
      example: 'sha256:43ad730492212e0818a579981a2fbb9a10479288b21310f069f918e0135c885c',
    }),
    costUsd: usd('costNanos in US dollars.', 0.00039),
    registryCostUsd: usd('registryCostNanos in US dollars.', 0.00039),
    discrepancyUsd: z.number().nullable().meta({
      description: 'clientCostUsd − costUsd; null when the client sent no estimate.',
      example: 0.00001,
    }),
  })
  .meta({ description: 'One row of the Forensic Ledger: one call, never its prompt or completion.' });
export type LedgerEntryView = z.infer<typeof ledgerEntryViewSchema>;

export const ledgerPageSchema = z
  .strictObject({
    entries: z.array(ledgerEntryViewSchema).max(MAX_LEDGER_PAGE).meta({ description: 'Newest first.' }),
    nextCursor: z.string().nullable().meta({
      description: 'Pass as `cursor` for the next page; null on the last page.',
      example: 'eyJwayI6Im9yZ19hY21lIn0',
    }),
  })
  .meta({ description: 'Response of GET /v1/ledger.' });
export type LedgerPage = z.infer<typeof ledgerPageSchema>;
