import {
  CHARS_PER_TOKEN,
  estimateRequestTokens,
  familyOfModel,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
  TokenTally,
  tokensFromChars,
} from './estimate';

describe('familyOfModel', () => {
  it.each([
    ['gpt-4.1-2025-04-14', 'openai'],
    ['o4-mini', 'openai'],
    ['openai/gpt-4o', 'openai'],
    ['text-embedding-3-small', 'openai'],
    ['claude-sonnet-4-5-20250929', 'anthropic'],
    ['anthropic/claude-3.5-haiku', 'anthropic'],
    ['gemini-2.5-pro', 'gemini'],
    ['google/gemma-3-27b-it', 'gemini'],
    ['llama3.2', 'llama'],
    ['meta-llama/Llama-3.1-8B-Instruct', 'llama'],
  ] as const)('%s → %s', (model, family) => {
    expect(familyOfModel(model, 'other')).toBe(family);
  });

  it('falls back for unknown names and for no model', () => {
    expect(familyOfModel('mistral-large-latest', 'other')).toBe('other');
    expect(familyOfModel(null, 'anthropic')).toBe('anthropic');
  });
});

describe('ratios', () => {
  it('documents the characters-per-token ratio of each family', () => {
    expect(CHARS_PER_TOKEN).toEqual({ openai: 4, anthropic: 3.5, gemini: 4, llama: 3.8, other: 4 });
  });

  it('rounds up: 9 characters of OpenAI text are 3 tokens, 7 of Claude text 2', () => {
    expect(tokensFromChars(9, 'openai')).toBe(3);
    expect(tokensFromChars(7, 'anthropic')).toBe(2);
    expect(tokensFromChars(0, 'openai')).toBe(0);
  });
});

describe('estimateRequestTokens', () => {
  it('counts OpenAI messages, content parts and the per-message overhead, not images', () => {
    // Prepare: 8 + 12 characters of text in 2 messages, plus an image (not counted)
    const body = {
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'Be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(4000)}` } },
          ],
        },
      ],
    };
    // Act / Assess: ceil(20 / 4) + 2 × 3 + 3 = 14
    expect(estimateRequestTokens('openai', body, 'openai', undefined)).toBe(
      5 + 2 * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS,
    );
  });

  it('counts tool definitions as their JSON text', () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
    const json = JSON.stringify(tools);
    expect(estimateRequestTokens('openai', { prompt: 'abcd', tools }, 'openai', undefined)).toBe(
      Math.ceil((4 + json.length) / 4),
    );
  });

  it('reads Anthropic system blocks, tool_use inputs as JSON, and skips document sources', () => {
    const body = {
      system: 'abc',
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'get', input: { q: 'x' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' },
            },
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
          ],
        },
      ],
    };
    // 'abc' 3 + 'get' 3 + '{"q":"x"}' 9 + 'sunny' 5 = 20 characters → ceil(20 / 3.5) = 6; 2 turns → 9
    expect(estimateRequestTokens('anthropic', body, 'anthropic', undefined)).toBe(6 + 9);
  });

  it('reads Gemini contents and systemInstruction, not inline data', () => {
    const body = {
      systemInstruction: { parts: [{ text: 'Be kind' }] },
      contents: [
        {
          role: 'user',
          parts: [{ text: 'Hi' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0K' } }],
        },
      ],
    };
    // 7 + 2 = 9 characters → 3 tokens; 1 turn → 6
    expect(estimateRequestTokens('gemini', body, 'gemini', undefined)).toBe(3 + 6);
  });

  it('reads Ollama generate prompts and system text', () => {
    expect(
      estimateRequestTokens(
        'ollama',
        { model: 'llama3.2', prompt: 'Why?', system: 'Short.' },
        'llama',
        undefined,
      ),
    ).toBe(Math.ceil(10 / 3.8));
  });

  it('uses the token counter when given, and the ratio where the counter fails', () => {
    const counter = (text: string): number => {
      if (text === 'boom') throw new Error('tokenizer failure');
      return 1;
    };
    // 'ok' → 1 token by the counter; 'boom' → ceil(4 / 4) = 1 by the ratio; 2 turns → 9
    const body = {
      messages: [
        { role: 'user', content: 'ok' },
        { role: 'user', content: 'boom' },
      ],
    };
    expect(estimateRequestTokens('openai', body, 'openai', counter)).toBe(2 + 9);
  });

  it('returns 0 for a missing or non-object body', () => {
    expect(estimateRequestTokens('openai', undefined, 'openai', undefined)).toBe(0);
    expect(estimateRequestTokens('openai', 'text', 'openai', undefined)).toBe(0);
  });

  it('does not recurse without bound on hostile nesting', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = { content: deep };
    expect(() => estimateRequestTokens('openai', { messages: [deep] }, 'openai', undefined)).not.toThrow();
  });
});

describe('TokenTally', () => {
  it('holds counts only and ignores counters that return nonsense', () => {
    const tally = new TokenTally(() => Number.NaN);
    tally.addText('abcdefgh');
    tally.addChars(4);
    expect(tally.total('openai')).toBe(3);
    expect(new TokenTally(undefined).total('openai')).toBe(0);
  });
});
