import fc from 'fast-check';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { getDefaultPriceRegistry } from '../pricing';
import { toLedgerEntry } from '../ledger/ledger-entry';
import { telemetryEvent } from '../../test/fixtures';
import { genAiCallOf, genAiOperationName, genAiProviderName } from './gen-ai-call';
import { GEN_AI, GEN_AI_METRICS } from './gen-ai-conventions';

const registry = getDefaultPriceRegistry();

describe('the GenAI convention names', () => {
  it.each([
    [GEN_AI.operationName, semconv.ATTR_GEN_AI_OPERATION_NAME],
    [GEN_AI.providerName, semconv.ATTR_GEN_AI_PROVIDER_NAME],
    [GEN_AI.requestModel, semconv.ATTR_GEN_AI_REQUEST_MODEL],
    [GEN_AI.responseModel, semconv.ATTR_GEN_AI_RESPONSE_MODEL],
    [GEN_AI.conversationId, semconv.ATTR_GEN_AI_CONVERSATION_ID],
    [GEN_AI.requestStream, semconv.ATTR_GEN_AI_REQUEST_STREAM],
    [GEN_AI.inputTokens, semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS],
    [GEN_AI.outputTokens, semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS],
    [GEN_AI.cacheReadInputTokens, semconv.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS],
    [GEN_AI.cacheCreationInputTokens, semconv.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS],
    [GEN_AI.reasoningOutputTokens, semconv.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS],
    [GEN_AI.tokenType, semconv.ATTR_GEN_AI_TOKEN_TYPE],
    [GEN_AI.errorType, semconv.ATTR_ERROR_TYPE],
    [GEN_AI_METRICS.tokenUsage, semconv.METRIC_GEN_AI_CLIENT_TOKEN_USAGE],
    [GEN_AI_METRICS.operationDuration, semconv.METRIC_GEN_AI_CLIENT_OPERATION_DURATION],
  ])('%s is the convention package’s name', (ours, theirs) => {
    expect(ours).toBe(theirs);
  });

  it('maps providers to the convention’s well-known values', () => {
    expect(genAiProviderName('gemini')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI);
    expect(genAiProviderName('xai')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_X_AI);
    expect(genAiProviderName('mistral')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_MISTRAL_AI);
    expect(genAiProviderName('bedrock')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK);
    expect(genAiProviderName('openrouter')).toBe('openrouter');
  });

  it.each([
    ['/v1/chat/completions', 'chat'],
    ['/v1/messages', 'chat'],
    ['/v1/responses', 'chat'],
    [null, 'chat'],
    ['/v1/embeddings', 'embeddings'],
    ['/api/embed', 'embeddings'],
    ['/v1/completions', 'text_completion'],
    ['/api/generate', 'text_completion'],
    ['/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', 'generate_content'],
  ])('names the operation of %s %s', (endpoint, operation) => {
    expect(genAiOperationName(endpoint)).toBe(operation);
  });
});

describe('genAiCallOf', () => {
  it('carries a cached Anthropic call with input inclusive of cache and the ledger’s exact cost', () => {
    // claude-sonnet-4-5: 12,000 prompt tokens = 2,500 uncached + 8,000 cache reads + 1,500 5-minute writes.
    const entry = toLedgerEntry(
      telemetryEvent({
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        inputTokens: 12_000,
        cacheReadTokens: 8_000,
        cacheWrite5mTokens: 1_000,
        cacheWrite1hTokens: 500,
        outputTokens: 700,
        reasoningTokens: 200,
        latencyMs: 1_234,
        endpoint: '/v1/messages',
        ts: Date.UTC(2026, 10, 25, 10),
      }),
      'key1',
      registry,
    );
    const call = genAiCallOf(entry, 'org_a');
    // $3 × 2,500 + $0.30 × 8,000 + $3.75 × 1,000 + $6 × 500 + $15 × 700, per million tokens.
    const bill = 2_500 * 3_000 + 8_000 * 300 + 1_000 * 3_750 + 500 * 6_000 + 700 * 15_000;
    expect(entry.costNanos).toBe(bill);
    expect(call.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.usage.input_tokens': 12_000,
      'gen_ai.usage.cache_read.input_tokens': 8_000,
      'gen_ai.usage.cache_creation.input_tokens': 1_500,
      'gen_ai.usage.reasoning.output_tokens': 200,
      'gen_ai.usage.cost.amount': bill / 1e9,
      'gen_ai.usage.cost.currency': 'USD',
      'gen_ai.usage.cost.source': 'provider_registry',
      'spendguard.cost.nanos': bill,
      'spendguard.organization.id': 'org_a',
      'spendguard.api_key.id': 'key1',
    });
    expect(call.name).toBe('chat claude-sonnet-4-5');
    expect([call.startMs, call.endMs]).toEqual([
      Date.UTC(2026, 10, 25, 10),
      Date.UTC(2026, 10, 25, 10) + 1_234,
    ]);
    expect(call.durationSeconds).toBe(1.234);
  });

  it('names the requested model as gen_ai.request.model and the answering one as gen_ai.response.model', () => {
    // A request for claude-haiku-4-5 answered by a Sonnet model: the hijack case must stay visible.
    const hijacked = toLedgerEntry(
      telemetryEvent({
        provider: 'anthropic',
        model: 'claude-sonnet-4-5-20250929',
        requestedModel: 'claude-haiku-4-5',
      }),
      'key1',
      registry,
    );
    const call = genAiCallOf(hijacked, 'org_a');
    expect(call.attributes['gen_ai.request.model']).toBe('claude-haiku-4-5');
    expect(call.attributes['gen_ai.response.model']).toBe('claude-sonnet-4-5-20250929');
    expect(call.metricAttributes['gen_ai.request.model']).toBe('claude-haiku-4-5');
    expect(call.name).toBe('chat claude-haiku-4-5');
    // A sender that did not say (ingest, rows before the field): both are the ledger's one model.
    const unsaid = genAiCallOf(toLedgerEntry(telemetryEvent({ model: 'gpt-4o' }), 'key1', registry), 'org_a');
    expect(unsaid.attributes['gen_ai.request.model']).toBe('gpt-4o');
    expect(unsaid.attributes['gen_ai.response.model']).toBe('gpt-4o');
  });

  it('keeps ids off the metric attributes and marks failed calls with error.type', () => {
    const entry = toLedgerEntry(telemetryEvent({ statusCode: 529, sessionId: 's1' }), 'key1', registry);
    const call = genAiCallOf(entry, 'org_a');
    expect(call.metricAttributes['error.type']).toBe('529');
    expect(Object.keys(call.metricAttributes).filter((k) => k.startsWith('spendguard.'))).toEqual([]);
    expect(call.attributes['spendguard.session.id']).toBe('s1');
  });

  it('for any call: input ≥ cache reads + writes, output ≥ reasoning, end ≥ start, cost exactly the ledger’s', () => {
    const count = fc.integer({ min: 0, max: 1e9 });
    fc.assert(
      fc.property(
        count,
        count,
        count,
        count,
        count,
        fc.option(fc.integer({ min: 0, max: 3_600_000 })),
        fc.integer({ min: 0, max: 2 ** 53 - 1 }),
        (uncached, read, write5m, write1h, output, latencyMs, costNanos) => {
          const entry = {
            ...toLedgerEntry(telemetryEvent(), 'k', registry),
            inputTokens: uncached + read + write5m + write1h,
            cacheReadTokens: read,
            cacheWrite5mTokens: write5m,
            cacheWrite1hTokens: write1h,
            outputTokens: output,
            reasoningTokens: Math.floor(output / 2),
            latencyMs,
            costNanos,
          };
          const a = genAiCallOf(entry, 'o');
          const input = a.attributes['gen_ai.usage.input_tokens'] as number;
          expect(input).toBeGreaterThanOrEqual(
            (a.attributes['gen_ai.usage.cache_read.input_tokens'] as number) +
              (a.attributes['gen_ai.usage.cache_creation.input_tokens'] as number),
          );
          expect(a.attributes['gen_ai.usage.output_tokens']).toBeGreaterThanOrEqual(
            a.attributes['gen_ai.usage.reasoning.output_tokens'] as number,
          );
          expect(a.endMs).toBeGreaterThanOrEqual(a.startMs);
          expect(a.attributes['spendguard.cost.nanos']).toBe(costNanos);
          // The double is the nearest to nanos / 1e9 (exact below 2^53 nano-USD, about $9M, to 1 ULP).
          expect(
            Math.abs((a.attributes['gen_ai.usage.cost.amount'] as number) * 1e9 - costNanos),
          ).toBeLessThanOrEqual(Math.max(1e-6, costNanos * Number.EPSILON * 2));
        },
      ),
    );
  });
});
