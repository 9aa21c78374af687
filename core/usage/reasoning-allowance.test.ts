import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateCost } from '../pricing';
import { createUsageStream } from './extract';
import { fixtureBytes, fixtureJson, usageOf } from './fixtures/load';
import {
  estimateReasoningOutput,
  isReasoningModel,
  maxOutputTokensOf,
  reasoningEffortOf,
} from './reasoning-allowance';
import { countOpenAITokens } from './tokenizer-openai';
import type { NormalizedUsage } from './types';

describe('reasoning allowance', () => {
  it.each([
    ['o3', true],
    ['o3-2025-04-16', true],
    ['o4-mini', true],
    ['o1-preview', true],
    ['openai/o3', true],
    ['gpt-5-mini-2025-08-07', true],
    ['gpt-5.1', true],
    ['gpt-oss-120b', true],
    ['deepseek-reasoner', true],
    ['grok-4-0709', true],
    ['grok-4-fast-non-reasoning', false],
    ['gpt-5-chat-latest', false],
    ['gpt-4o', false],
    ['claude-sonnet-4-5', false],
    ['omni-moderation-latest', false],
  ])('knows whether %s reasons in hidden tokens (%s)', (model, expected) => {
    expect(isReasoningModel(model)).toBe(expected);
  });

  it('reads the effort of both APIs, defaulting to medium (none for GPT-5.1 and later)', () => {
    expect(reasoningEffortOf({ reasoning_effort: 'low' }, 'o3')).toBe('low');
    expect(reasoningEffortOf({ reasoning: { effort: 'high' } }, 'o3')).toBe('high');
    expect(reasoningEffortOf({}, 'o3')).toBe('medium');
    expect(reasoningEffortOf({ reasoning_effort: 'turbo' }, 'o3')).toBe('medium');
    expect(reasoningEffortOf({}, 'gpt-5.1')).toBe('none');
  });

  it('reads max_completion_tokens, max_output_tokens or max_tokens', () => {
    expect(maxOutputTokensOf({ max_completion_tokens: 500 })).toBe(500);
    expect(maxOutputTokensOf({ max_output_tokens: 700 })).toBe(700);
    expect(maxOutputTokensOf({ max_tokens: 900 })).toBe(900);
    expect(maxOutputTokensOf({ max_tokens: -1 })).toBeNull();
    expect(maxOutputTokensOf('not an object')).toBeNull();
  });

  it('adds 10× the visible output at medium effort: o3, 192 visible → 2,112', () => {
    expect(estimateReasoningOutput(192, 'o3', { model: 'o3' })).toEqual({
      outputTokens: 2_112,
      reasoningTokens: 1_920,
    });
  });

  it('adds nothing for a model that does not reason', () => {
    expect(estimateReasoningOutput(192, 'gpt-4o', {})).toEqual({ outputTokens: 192, reasoningTokens: 0 });
  });

  it('is never below the visible output, and never above the request cap unless the visible output is', () => {
    const effort = fc.constantFrom('none', 'minimal', 'low', 'medium', 'high', 'xhigh', undefined);
    fc.assert(
      fc.property(
        fc.nat({ max: 1_000_000 }),
        fc.option(fc.integer({ min: 1, max: 2_000_000 }), { nil: undefined }),
        effort,
        fc.constantFrom('o3', 'gpt-5-mini', 'gpt-4o', 'deepseek-reasoner'),
        (visible, max, e, model) => {
          const request = { ...(max !== undefined && { max_completion_tokens: max }), reasoning_effort: e };
          const out = estimateReasoningOutput(visible, model, request);
          expect(out.outputTokens).toBeGreaterThanOrEqual(visible);
          expect(out.outputTokens).toBe(visible + out.reasoningTokens);
          if (max !== undefined) expect(out.outputTokens).toBeLessThanOrEqual(Math.max(max, visible));
        },
      ),
    );
  });

  it('flags the estimate of an o3 stream without usage and counts its hidden reasoning', () => {
    const stream = createUsageStream('openai', {
      requestBody: fixtureJson('openai-o3-stream-no-usage.request.json'),
      tokenCounter: countOpenAITokens,
    });
    stream.push(fixtureBytes('openai-o3-stream-no-usage.sse'));
    const result = stream.end();
    const truth = fixtureJson('openai-o3-stream-no-usage.usage.json') as { prompt_tokens: number };
    // the visible text as the relay counts it: each streamed piece through the o200k counter
    const visible = new TextDecoder()
      .decode(fixtureBytes('openai-o3-stream-no-usage.sse'))
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => (JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] }).choices)
      .reduce((sum, choices) => sum + countOpenAITokens(choices[0]?.delta.content ?? ''), 0);

    expect(result).toMatchObject({
      ok: true,
      usage: {
        model: 'o3-2025-04-16',
        estimated: true,
        inputTokens: truth.prompt_tokens,
        outputTokens: visible * 11,
        reasoningTokens: visible * 10,
      },
    });
  });

  it('bounds the estimate by max_completion_tokens (gpt-5-mini, high effort, cap 2,000)', () => {
    const stream = createUsageStream('openai', {
      requestBody: fixtureJson('openai-gpt-5-mini-high-capped-stream-no-usage.request.json'),
      tokenCounter: countOpenAITokens,
    });
    stream.push(fixtureBytes('openai-gpt-5-mini-high-capped-stream-no-usage.sse'));
    const result = stream.end();

    expect(result.ok && result.usage.estimated).toBe(true);
    expect(result.ok && result.usage.outputTokens).toBeLessThanOrEqual(2_000);
  });
});

describe('the measured error table of docs/usage.md', () => {
  const doc = readFileSync(join(__dirname, '../../docs/usage.md'), 'utf8');
  const AT = Date.UTC(2025, 10, 23, 12);
  const cost = (usage: NormalizedUsage): number =>
    calculateCost({ provider: 'openai', usage, at: AT }).costNanos;
  const pct = (value: number, bill: number): string => {
    const p = (((value - bill) / bill) * 100).toFixed(1);
    return `${p.startsWith('-') ? '−' + p.slice(1) : '+' + p} %`;
  };

  it.each([
    ['o3', 'openai-o3-stream-no-usage'],
    ['o4-mini', 'openai-o4-mini-low-stream-no-usage'],
    ['gpt-5-mini', 'openai-gpt-5-mini-high-capped-stream-no-usage'],
  ])('states the errors the code makes on the %s fixture', (model, file) => {
    const request = fixtureJson(`${file}.request.json`) as { model: string };
    const truth = fixtureJson(`${file}.usage.json`) as {
      prompt_tokens: number;
      completion_tokens: number;
      completion_tokens_details: { reasoning_tokens: number };
    };
    const bill = cost({
      ...usageOf({ model: request.model, inputTokens: truth.prompt_tokens }),
      outputTokens: truth.completion_tokens,
      reasoningTokens: truth.completion_tokens_details.reasoning_tokens,
    });
    const estimate = (counter?: typeof countOpenAITokens): NormalizedUsage => {
      const stream = createUsageStream('openai', {
        requestBody: request,
        ...(counter && { tokenCounter: counter }),
      });
      stream.push(fixtureBytes(`${file}.sse`));
      const result = stream.end();
      if (!result.ok) throw new Error(result.reason);
      return result.usage;
    };
    const relay = estimate(countOpenAITokens);
    const visibleOnly = {
      ...relay,
      outputTokens: relay.outputTokens - relay.reasoningTokens,
      reasoningTokens: 0,
    };
    const row = doc
      .split('\n')
      .find((l) => l.startsWith(`| \`${model}\``))
      ?.split('|')
      .map((c) => c.trim());

    expect(row?.slice(3, 6)).toEqual([
      pct(cost(visibleOnly), bill),
      pct(cost(relay), bill),
      pct(cost(estimate()), bill),
    ]);
  });
});

describe('a short answer over long hidden reasoning (issue 18.8)', () => {
  /** An o3 Chat Completions stream in OpenAI's format that answers one word and reports no usage. */
  const classification = (): Uint8Array => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({
        id: 'chatcmpl-cls1',
        object: 'chat.completion.chunk',
        created: 1763900000,
        model: 'o3-2025-04-16',
        service_tier: 'default',
        system_fingerprint: null,
        choices: [{ index: 0, delta, finish_reason: finish }],
      })}\n\n`;
    return new TextEncoder().encode(
      chunk({ role: 'assistant', content: '' }) +
        chunk({ content: 'negative' }) +
        chunk({}, 'stop') +
        'data: [DONE]\n\n',
    );
  };
  const request = {
    model: 'o3',
    stream: true,
    messages: [{ role: 'user', content: 'Sentiment of: "The update broke my workflow again." One word.' }],
  };
  const AT = Date.UTC(2025, 10, 23, 12);
  const cost = (usage: NormalizedUsage) => calculateCost({ provider: 'openai', usage, at: AT }).costNanos;

  function estimate(typical?: (model: string, effort: string) => number | undefined): NormalizedUsage {
    const stream = createUsageStream('openai', {
      requestBody: request,
      tokenCounter: countOpenAITokens,
      ...(typical && { typicalReasoning: typical }),
    });
    stream.push(classification());
    const result = stream.end();
    if (!result.ok) throw new Error(result.reason);
    return result.usage;
  }

  it('records an o3 call with a one-word answer and 2,000 reasoning tokens at no less than half its bill, flagged', () => {
    const est = estimate();
    // the bill: the prompt as estimated (the input is not what this is about), 1 visible + 2,000 hidden tokens
    const bill = cost({ ...est, outputTokens: 2_001, reasoningTokens: 2_000, estimated: false });
    expect(est.estimated).toBe(true);
    expect(cost(est)).toBeGreaterThanOrEqual(bill / 2);
    expect(cost(est)).toBeLessThanOrEqual(bill);
    // visible text alone (before issue 18.8) was a few percent of it
    expect(
      cost({ ...est, outputTokens: est.outputTokens - est.reasoningTokens, reasoningTokens: 0 }),
    ).toBeLessThan(bill / 10);
  });

  it('uses the organization’s learned figure when the relay has one', () => {
    const est = estimate((model, effort) =>
      model.startsWith('o3') && effort === 'medium' ? 2_000 : undefined,
    );
    expect(est.reasoningTokens).toBe(2_000);
    expect(est.estimated).toBe(true);
  });
});
