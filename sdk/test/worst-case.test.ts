/**
 * The SDK's worst case of a call is the relay's (issue 18.5 with 18.6's estimator): the same shape, the
 * same token bounds, priced at the same dearest tier and cache-write rate; a call billed after it returns
 * has no bound (refused under a hard cap, lease.test.ts). Compared with core/admission/worst-case.ts, which
 * prices from the full registry; the models here are in the SDK's price table.
 */
import fc from 'fast-check';
import { cheapWorstCase, DEFERRED_WORST_CASE_NANOS, preciseWorstCase } from '../../core/admission/worst-case';
import { getProvider, requestFlavorOf } from '../../core/providers/catalog';
import type { ProviderEntry } from '../../core/providers/types';
import { UNPARSED, type CallFacts } from '../src/event';
import * as readers from '../src/admission-readers';
import { worstCaseOf as worstCaseWith } from '../src/worst-case';

/** Without deferred billing allowed, with the readers the client loads on demand. */
const worstCaseOf = (facts: CallFacts, availableNanos: number) =>
  worstCaseWith(facts, availableNanos, false, readers);

const AT = Date.UTC(2026, 10, 20);
const LABELS = {
  projectId: 'p',
  environment: 'production',
  sessionId: undefined,
  featureId: undefined,
} as const;

function facts(providerId: string, path: string, body: string): CallFacts {
  const provider = getProvider(providerId) as ProviderEntry;
  const host = providerId === 'openai' ? 'api.openai.com' : 'api.anthropic.com';
  return {
    provider,
    url: `https://${host}${path}`,
    path,
    body,
    labels: LABELS,
    startedAt: AT,
    parsed: UNPARSED,
  };
}

function relay(f: CallFacts, precise: boolean): number {
  const body = Buffer.from(f.body as string);
  const model = (JSON.parse(f.body as string) as { model?: unknown }).model;
  const call = {
    provider: f.provider.id,
    flavor: requestFlavorOf(f.provider, f.url),
    model: typeof model === 'string' ? model : null,
    body,
    atMs: AT,
    endpoint: f.path,
  };
  return (precise ? preciseWorstCase(call, undefined) : cheapWorstCase(call)).costNanos;
}

const text = fc.string({ maxLength: 300 });
const tokens = fc.oneof(
  fc.constantFrom(1, 16_384, 16_385, 64_000, 64_001),
  fc.integer({ min: 1, max: 100_000 }),
);
const openaiCall = fc.record(
  {
    model: fc.constantFrom('gpt-4o-mini', 'gpt-4o', 'gpt-4.1'),
    max_completion_tokens: tokens,
    n: fc.integer({ min: 1, max: 200 }),
    service_tier: fc.constantFrom('priority', 'default', 'flex'),
    previous_response_id: fc.constant('resp_1'),
    background: fc.boolean(),
    messages: fc.array(
      fc.record({
        role: fc.constant('user'),
        content: fc.oneof(
          text,
          fc.constant([{ type: 'input_audio', input_audio: { data: 'UklGRiQAAABXQVZF', format: 'wav' } }]),
        ),
      }),
      { maxLength: 4 },
    ),
  },
  { requiredKeys: ['model', 'messages'] },
);
const anthropicCall = fc.record(
  {
    model: fc.constantFrom('claude-sonnet-4-5', 'claude-opus-4-5', 'claude-3-5-haiku-20241022'),
    max_tokens: tokens,
    service_tier: fc.constantFrom('priority', 'standard_only'),
    system: fc.oneof(
      text,
      fc.constant([{ type: 'text', text: 'rules', cache_control: { type: 'ephemeral' } }]),
      fc.constant([{ type: 'text', text: 'rules', cache_control: { type: 'ephemeral', ttl: '1h' } }]),
    ),
    messages: fc.array(
      fc.record({
        role: fc.constant('user'),
        content: fc.oneof(
          text,
          fc.constant([
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' },
            },
          ]),
        ),
      }),
      { maxLength: 4 },
    ),
  },
  { requiredKeys: ['model', 'messages'] },
);
const call = fc.oneof(
  fc.tuple(fc.constant('openai'), fc.constantFrom('/v1/chat/completions', '/v1/responses'), openaiCall),
  fc.tuple(fc.constant('anthropic'), fc.constantFrom('/v1/messages', '/v1/messages/batches'), anthropicCall),
);

describe('the SDK worst case', () => {
  it("is the relay's, to the nano-dollar, cheap and precise; deferred exactly when the relay's is", () => {
    fc.assert(
      fc.property(call, ([provider, path, body]) => {
        const f = facts(provider, path, JSON.stringify(body));
        const cheap = relay(f, false);
        const roomy = worstCaseOf(f, Number.MAX_SAFE_INTEGER);
        if (cheap === DEFERRED_WORST_CASE_NANOS) {
          expect(roomy.kind).toBe('deferred');
          return;
        }
        expect(roomy).toEqual({ kind: 'bounded', nanos: cheap });
        // Near the cap (less than 4× the cheap bound left): the precise bound, never above the cheap one.
        const tight = worstCaseOf(facts(provider, path, JSON.stringify(body)), cheap);
        expect(tight).toEqual({ kind: 'bounded', nanos: Math.min(cheap, relay(f, true)) });
      }),
      { numRuns: 300 },
    );
  });

  it('prices the dearest tier and cache write the request can trigger', () => {
    const base = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'hi' }],
    };
    const nanos = (body: object): number => {
      const w = worstCaseOf(
        facts('anthropic', '/v1/messages', JSON.stringify(body)),
        Number.MAX_SAFE_INTEGER,
      );
      return w.kind === 'bounded' ? w.nanos : -1;
    };
    const inputOf = (body: object): number => JSON.stringify(body).length + 16;
    const plain = nanos(base);
    // Sonnet 4.5: $3 input, $15 output per MTok; 5-minute writes $3.75, 1-hour writes $6 (published).
    expect(plain).toBe(inputOf(base) * 3_000 + 1000 * 15_000);
    const fiveMin = { ...base, system: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }] };
    expect(nanos(fiveMin)).toBe(inputOf(fiveMin) * 3_750 + 1000 * 15_000);
    const oneHour = {
      ...base,
      system: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    };
    expect(nanos(oneHour)).toBe(inputOf(oneHour) * 6_000 + 1000 * 15_000);
  });

  it('names the deferral of batch, fine-tuning and background calls', () => {
    const chat = JSON.stringify({ model: 'gpt-4o-mini', messages: [] });
    expect(worstCaseOf(facts('openai', '/v1/batches', chat), 1e12)).toEqual({
      kind: 'deferred',
      billing: 'batch',
    });
    expect(worstCaseOf(facts('openai', '/v1/fine_tuning/jobs', chat), 1e12)).toEqual({
      kind: 'deferred',
      billing: 'fine_tuning',
    });
    const background = JSON.stringify({ model: 'gpt-4o', input: 'hi', background: true });
    expect(worstCaseOf(facts('openai', '/v1/responses', background), 1e12)).toEqual({
      kind: 'deferred',
      billing: 'background',
    });
  });
});
