import fc from 'fast-check';
import { countOpenAITokens } from '../usage/tokenizer-openai';
import { hardCapsOf } from './budget-scopes';
import { maxOutputTokensOf } from './max-output';
import { cheapWorstCase, IMAGE_TOKEN_BOUND, INPUT_MARGIN_TOKENS, preciseWorstCase } from './worst-case';

const AT = Date.UTC(2026, 10, 23);
const chat = (body: unknown, model: string | null = 'gpt-4o') => ({
  provider: 'openai',
  flavor: 'openai' as const,
  model,
  body: Buffer.from(JSON.stringify(body)),
  atMs: AT,
});

describe('cheapWorstCase', () => {
  it('prices body bytes as input and max_tokens as output at gpt-4o’s published rates', () => {
    const body = { model: 'gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] };
    const bytes = Buffer.byteLength(JSON.stringify(body));
    const w = cheapWorstCase(chat(body));
    expect(w).toMatchObject({
      inputTokens: bytes + INPUT_MARGIN_TOKENS,
      outputTokens: 100,
      outputBound: 'request',
    });
    // $2.50 / MTok input = 2,500 nanos per token; $10 / MTok output = 10,000 nanos per token
    expect(w.costNanos).toBe((bytes + INPUT_MARGIN_TOKENS) * 2_500 + 100 * 10_000);
  });

  it.each([
    ['max_completion_tokens', { max_completion_tokens: 300 }, 300],
    ['max_output_tokens (Responses)', { max_output_tokens: 200 }, 200],
    ['n choices multiply the bound', { max_tokens: 10, n: 3 }, 30],
    ['a bound above the model maximum is the maximum', { max_tokens: 1_000_000 }, 16_384],
    ['no bound: the model maximum', {}, 16_384],
  ])('%s', (_name, extra, expected) => {
    expect(cheapWorstCase(chat({ messages: [], ...extra })).outputTokens).toBe(expected);
  });

  it('reads generationConfig.maxOutputTokens and candidateCount of a Gemini request', () => {
    const body = { contents: [], generationConfig: { maxOutputTokens: 50, candidateCount: 4 } };
    expect(cheapWorstCase({ ...chat(body, 'gemini-2.5-pro'), flavor: 'gemini' }).outputTokens).toBe(200);
  });

  it('takes the largest bound when a nested member has the same name (a tool schema cannot lower it)', () => {
    const body = {
      tools: [{ type: 'function', function: { name: 'f', parameters: { max_tokens: 5 } } }],
      max_tokens: 900,
    };
    expect(cheapWorstCase(chat(body)).outputTokens).toBe(900);
  });

  it('adds a bound per image part', () => {
    const body = {
      max_tokens: 1,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }],
    };
    const plain = Buffer.byteLength(JSON.stringify(body)) + INPUT_MARGIN_TOKENS;
    // The part's type value and its member name both match the marker: an over-count, never an under-count.
    expect(cheapWorstCase(chat(body)).inputTokens).toBe(plain + 2 * IMAGE_TOKEN_BOUND);
  });

  it('bounds the o200k token count of any prompt (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), (text) => {
        const w = cheapWorstCase(chat({ messages: [{ role: 'user', content: text }], max_tokens: 1 }));
        expect(w.inputTokens).toBeGreaterThanOrEqual(countOpenAITokens(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('preciseWorstCase', () => {
  it('is tighter than the cheap bound and never below the tokenizer’s or the ratio’s count', () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(40);
    const body = { messages: [{ role: 'user', content: text }], max_tokens: 64 };
    const precise = preciseWorstCase(chat(body), countOpenAITokens);
    expect(precise.precise).toBe(true);
    expect(precise.inputTokens).toBeLessThan(cheapWorstCase(chat(body)).inputTokens);
    expect(precise.inputTokens).toBeGreaterThanOrEqual(countOpenAITokens(text));
    expect(precise.inputTokens).toBeGreaterThanOrEqual(Math.ceil(text.length / 4));
  });

  it('falls back to the cheap bound for a body that is not JSON', () => {
    const call = { ...chat({}), body: Buffer.from('not json') };
    expect(preciseWorstCase(call, countOpenAITokens)).toEqual(cheapWorstCase(call));
  });
});

describe('maxOutputTokensOf', () => {
  it.each([
    ['gpt-4o-mini-2024-07-18', 16_384],
    ['claude-sonnet-4-5-20250929', 64_000],
    ['anthropic/claude-opus-4', 32_000],
    ['gemini-2.5-pro', 65_536],
    ['o3-mini', 100_000],
    ['llama-3.3-70b-versatile', 32_768],
    ['something-new', 131_072],
  ])('%s → %d', (model, expected) => {
    expect(maxOutputTokensOf(model)).toBe(expected);
  });
});

describe('hardCapsOf', () => {
  it('enforces daily and monthly limits only when the action is block and layer 1 is on', () => {
    expect(
      hardCapsOf({ budget: { dailyLimitUsd: 0.3, monthlyLimitUsd: 10, action: 'block' }, policy: {} }),
    ).toEqual({
      day: 300_000_000,
      month: 10_000_000_000,
    });
    expect(hardCapsOf({ budget: { dailyLimitUsd: 0.3, action: 'warn' }, policy: {} })).toEqual({
      day: null,
      month: null,
    });
    expect(
      hardCapsOf({
        budget: { dailyLimitUsd: 0.3, action: 'block' },
        policy: { financialLimits: { enabled: false } },
      }),
    ).toEqual({ day: null, month: null });
    expect(hardCapsOf(undefined)).toEqual({ day: null, month: null });
  });
});

describe('a worst case that covers what bills (issue 18.6)', () => {
  const anthropic = (body: unknown, model: string) => ({
    provider: 'anthropic',
    flavor: 'anthropic' as const,
    model,
    body: Buffer.from(JSON.stringify(body)),
    atMs: AT,
  });

  it('keeps claude-opus-4-5’s max_tokens 64,000 (an opus-4 family row reserved 32k)', () => {
    const body = { model: 'claude-opus-4-5', max_tokens: 64_000, messages: [] };
    expect(cheapWorstCase(anthropic(body, 'claude-opus-4-5')).outputTokens).toBe(64_000);
    expect(cheapWorstCase(anthropic(body, 'claude-opus-4-5-20251101')).outputTokens).toBe(64_000);
    // a documented limit of that exact model still lowers an impossible request
    expect(cheapWorstCase(anthropic({ ...body, max_tokens: 100_000 }, 'claude-opus-4-1')).outputTokens).toBe(
      32_000,
    );
  });

  it('bounds a 300 KB base64 PDF above its bill ($0.47–$1.52; issue 18 reserved $0.015)', () => {
    const pdf = Buffer.alloc(225_000, 7).toString('base64'); // 300,000 characters
    const body = {
      model: 'claude-opus-4-5',
      max_tokens: 1_024,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } },
            { type: 'text', text: 'Summarize.' },
          ],
        },
      ],
    };
    const call = anthropic(body, 'claude-opus-4-5');
    expect(preciseWorstCase(call, countOpenAITokens).inputTokens).toBeGreaterThanOrEqual(300_000);
    expect(preciseWorstCase(call, countOpenAITokens).costNanos).toBeGreaterThanOrEqual(1_520_000_000);
    expect(cheapWorstCase(call).costNanos).toBeGreaterThanOrEqual(1_520_000_000);
  });

  it('prices service_tier priority at OpenAI’s priority rates ($4.25 / $17 per MTok for gpt-4o)', () => {
    const body = { model: 'gpt-4o', max_tokens: 100, messages: [] };
    const priority = cheapWorstCase(chat({ ...body, service_tier: 'priority' }));
    expect(priority.costNanos).toBe(priority.inputTokens * 4_250 + 100 * 17_000);
    const flex = cheapWorstCase(chat({ ...body, service_tier: 'flexible-anything' }));
    expect(flex.costNanos).toBe(flex.inputTokens * 2_500 + 100 * 10_000);
  });

  it('prices a 1-hour cache_control request’s input at the 1-hour write rate (2× input)', () => {
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1,
      system: [{ type: 'text', text: 'rules', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [],
    };
    const plain = cheapWorstCase(anthropic({ ...body, system: 'rules' }, 'claude-sonnet-4-5'));
    const cached = cheapWorstCase(anthropic(body, 'claude-sonnet-4-5'));
    // $3 / MTok input, $6 / MTok 1-hour writes, $15 / MTok output
    expect(plain.costNanos).toBe(plain.inputTokens * 3_000 + 15_000);
    expect(cached.costNanos).toBe(cached.inputTokens * 6_000 + 15_000);
  });

  it('multiplies by best_of and n, and adds the context window for previous_response_id', () => {
    expect(cheapWorstCase(chat({ max_tokens: 10, n: 2, best_of: 5 })).outputTokens).toBe(50);
    const follow = cheapWorstCase(
      chat({ max_output_tokens: 10, previous_response_id: 'resp_1', input: 'and?' }, 'gpt-5'),
    );
    expect(follow.inputTokens).toBeGreaterThanOrEqual(400_000);
  });

  it('fits a batch, fine-tuning or background call under no cap', () => {
    const bg = cheapWorstCase(chat({ max_output_tokens: 10, background: true, input: 'x' }, 'gpt-5'));
    expect(bg.costNanos).toBeGreaterThan(1_000_000_000 * 1_000_000); // over $1M
  });
});
