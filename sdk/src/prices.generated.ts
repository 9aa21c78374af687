// GENERATED FILE — DO NOT EDIT. Source: core/pricing (genai-prices data + supplements),
// generator: sdk/scripts/gen-prices.ts. Regenerate with `npx tsx sdk/scripts/gen-prices.ts`.

/**
 * USD per million tokens: input, output, then optionally cache read (default: input), 5-minute write
 * (default: input), 1-hour write (default: 5-minute write), reasoning (default: output).
 */
export type CompactRates = readonly number[];

/** `[constraint, base, long-context bands?]`; constraint `['s', startMs]` or `['t', startSecond, endSecond]`. */
export type CompactPeriod = readonly [
  readonly [string, number, number?] | null,
  CompactRates,
  (readonly (readonly [number, CompactRates])[])?,
];

/** `[provider, model as sent (lower case), matched dataset model (0: the same as sent), periods]`. */
export type PriceRow = readonly [string, string, string | 0, readonly CompactPeriod[]];

export const PRICE_ROWS: readonly PriceRow[] = [
  ['openai', 'gpt-4o', 0, [[null, [2.5, 10, 1.25]]]],
  ['openai', 'gpt-4o-mini', 0, [[null, [0.15, 0.6, 0.075]]]],
  ['openai', 'gpt-4o-2024-05-13', 0, [[null, [5, 15]]]],
  ['openai', 'chatgpt-4o-latest', 0, [[null, [5, 15]]]],
  ['openai', 'gpt-4.1', 0, [[null, [2, 8, 0.5]]]],
  ['openai', 'gpt-4.1-mini', 0, [[null, [0.4, 1.6, 0.1]]]],
  ['openai', 'gpt-4.1-nano', 0, [[null, [0.1, 0.4, 0.025]]]],
  ['openai', 'gpt-5', 0, [[null, [1.25, 10, 0.125]]]],
  ['openai', 'gpt-5-mini', 0, [[null, [0.25, 2, 0.025]]]],
  ['openai', 'gpt-5-nano', 0, [[null, [0.05, 0.4, 0.005]]]],
  ['openai', 'gpt-5.1', 0, [[null, [1.25, 10, 0.125]]]],
  ['openai', 'gpt-5.2', 0, [[null, [1.75, 14, 0.175]]]],
  ['openai', 'gpt-5.4', 0, [[null, [2.5, 15, 0.25], [[271999, [5, 22.5, 0.5]]]]]],
  ['openai', 'gpt-5.4-mini', 0, [[null, [0.75, 4.5, 0.075]]]],
  ['openai', 'o1', 0, [[null, [15, 60, 7.5]]]],
  [
    'openai',
    'o3',
    0,
    [
      [null, [10, 40, 0.5]],
      [
        ['s', 1749513600000],
        [2, 8, 0.5],
      ],
    ],
  ],
  ['openai', 'o3-mini', 0, [[null, [1.1, 4.4, 0.55]]]],
  ['openai', 'o4-mini', 0, [[null, [1.1, 4.4, 0.275]]]],
  ['openai', 'gpt-4-turbo', 0, [[null, [10, 30]]]],
  ['openai', 'gpt-4', 0, [[null, [30, 60]]]],
  ['openai', 'gpt-3.5-turbo', 0, [[null, [0.5, 1.5]]]],
  ['openai', 'text-embedding-3-small', 0, [[null, [0.02, 0]]]],
  ['openai', 'text-embedding-3-large', 0, [[null, [0.13, 0]]]],
  ['anthropic', 'claude-opus-4-5', 0, [[null, [5, 25, 0.5, 6.25, 10]]]],
  ['anthropic', 'claude-opus-4-1', 0, [[null, [15, 75, 1.5, 18.75, 30]]]],
  ['anthropic', 'claude-opus-4-0', 0, [[null, [15, 75, 1.5, 18.75, 30]]]],
  ['anthropic', 'claude-sonnet-4-5', 0, [[null, [3, 15, 0.3, 3.75, 6], [[200000, [6, 22.5, 0.6, 7.5, 12]]]]]],
  ['anthropic', 'claude-sonnet-4-0', 0, [[null, [3, 15, 0.3, 3.75, 6], [[200000, [6, 22.5, 0.6, 7.5, 12]]]]]],
  ['anthropic', 'claude-haiku-4-5', 0, [[null, [1, 5, 0.1, 1.25, 2]]]],
  ['anthropic', 'claude-3-7-sonnet', 'claude-3-7-sonnet-latest', [[null, [3, 15, 0.3, 3.75, 6]]]],
  ['anthropic', 'claude-3-5-sonnet', 0, [[null, [3, 15, 0.3, 3.75, 6]]]],
  ['anthropic', 'claude-3-5-haiku', 'claude-3-5-haiku-latest', [[null, [0.8, 4, 0.08, 1, 1.6]]]],
  ['anthropic', 'claude-3-haiku', 0, [[null, [0.25, 1.25, 0.03, 0.3, 0.5]]]],
  ['gemini', 'gemini-3-pro-preview', 0, [[null, [2, 12, 0.2], [[200000, [4, 18, 0.4]]]]]],
  ['gemini', 'gemini-2.5-pro', 0, [[null, [1.25, 10, 0.125], [[200000, [2.5, 15, 0.25]]]]]],
  ['gemini', 'gemini-2.5-flash', 0, [[null, [0.3, 2.5, 0.03]]]],
  ['gemini', 'gemini-2.5-flash-lite', 0, [[null, [0.1, 0.4, 0.01]]]],
  ['gemini', 'gemini-2.0-flash', 0, [[null, [0.1, 0.4, 0.025]]]],
  ['gemini', 'gemini-2.0-flash-lite', 0, [[null, [0.075, 0.3]]]],
  ['gemini', 'gemini-1.5-pro', 0, [[null, [1.25, 5], [[128000, [2.5, 10]]]]]],
  ['gemini', 'gemini-1.5-flash', 0, [[null, [0.075, 0.3, 0.01875], [[128000, [0.15, 0.6, 0.0375]]]]]],
  ['openrouter', 'openai/gpt-4o', 0, [[null, [2.5, 10, 1.25]]]],
  ['openrouter', 'openai/gpt-4o-mini', 0, [[null, [0.15, 0.6, 0.075]]]],
  [
    'openrouter',
    'anthropic/claude-sonnet-4.5',
    0,
    [[null, [3, 15, 0.3, 3.75, 6], [[200000, [6, 22.5, 0.6, 7.5, 12]]]]],
  ],
  [
    'bedrock',
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'regional.anthropic.claude-sonnet-4-5-20250929-v1:0',
    [[null, [3.3, 16.5, 0.33, 4.125, 6.6], [[200000, [6.6, 24.75, 0.66, 8.25, 13.2]]]]],
  ],
  [
    'bedrock',
    'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'regional.anthropic.claude-sonnet-4-5-20250929-v1:0',
    [[null, [3.3, 16.5, 0.33, 4.125, 6.6], [[200000, [6.6, 24.75, 0.66, 8.25, 13.2]]]]],
  ],
  [
    'bedrock',
    'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
    0,
    [[null, [3, 15, 0.3, 3.75, 6], [[200000, [6, 22.5, 0.6, 7.5, 12]]]]],
  ],
  [
    'bedrock',
    'us.anthropic.claude-haiku-4-5-20251001-v1:0',
    'regional.anthropic.claude-haiku-4-5-20251001-v1:0',
    [[null, [1.1, 5.5, 0.11, 1.375, 2.2]]],
  ],
  ['bedrock', 'global.anthropic.claude-haiku-4-5-20251001-v1:0', 0, [[null, [1, 5, 0.1, 1.25, 2]]]],
  ['bedrock', 'us.amazon.nova-pro-v1:0', 'amazon.nova-pro-v1:0', [[null, [0.8, 3.2, 0.2]]]],
  ['bedrock', 'us.amazon.nova-lite-v1:0', 'amazon.nova-lite-v1:0', [[null, [0.06, 0.24, 0.015]]]],
  ['bedrock', 'us.amazon.nova-micro-v1:0', 'amazon.nova-micro-v1:0', [[null, [0.035, 0.14, 0.00875]]]],
  [
    'openrouter',
    'anthropic/claude-sonnet-4',
    0,
    [[null, [3, 15, 0.3, 3.75, 6], [[200000, [6, 22.5, 0.6, 7.5, 12]]]]],
  ],
  ['openrouter', 'google/gemini-2.5-flash', 0, [[null, [0.3, 2.5, 0.075, 0.3833]]]],
  [
    'openrouter',
    'google/gemini-2.5-pro',
    0,
    [[null, [1.25, 10, 0.31, 1.625], [[200000, [2.5, 15, 0.31, 1.625]]]]],
  ],
  ['openrouter', 'deepseek/deepseek-chat', 0, [[null, [0.38, 0.89]]]],
  ['openrouter', 'meta-llama/llama-3.3-70b-instruct', 0, [[null, [0.05, 0.24]]]],
  ['groq', 'llama-3.3-70b-versatile', 0, [[null, [0.59, 0.79]]]],
  ['groq', 'llama-3.1-8b-instant', 0, [[null, [0.05, 0.08]]]],
  ['groq', 'openai/gpt-oss-120b', 0, [[null, [0.15, 0.6, 0.075]]]],
  ['groq', 'openai/gpt-oss-20b', 0, [[null, [0.075, 0.3, 0.0375]]]],
  ['mistral', 'mistral-large-latest', 'mistral-large', [[null, [2, 6]]]],
  [
    'mistral',
    'mistral-medium-latest',
    0,
    [
      [null, [0.4, 2, 0.04]],
      [
        ['s', 1781568000000],
        [1.5, 7.5, 0.15],
      ],
    ],
  ],
  ['mistral', 'mistral-small-latest', 0, [[null, [0.1, 0.3]]]],
  ['mistral', 'codestral-latest', 'codestral', [[null, [0.3, 0.9]]]],
  [
    'deepseek',
    'deepseek-chat',
    0,
    [
      [null, [0.135, 0.55, 0.035]],
      [
        ['t', 1800, 59400],
        [0.27, 1.1, 0.07],
      ],
    ],
  ],
  [
    'deepseek',
    'deepseek-reasoner',
    0,
    [
      [null, [0.135, 0.55, 0.035]],
      [
        ['t', 1800, 59400],
        [0.55, 2.19, 0.14],
      ],
    ],
  ],
  ['xai', 'grok-4', 'grok-4-0709', [[null, [3, 15, 0.75]]]],
  ['xai', 'grok-3', 0, [[null, [3, 15, 0.75]]]],
  ['xai', 'grok-3-mini', 0, [[null, [0.3, 0.5, 0.075]]]],
  [
    'together',
    'meta-llama/llama-3.3-70b-instruct-turbo',
    'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    [[null, [0.88, 0.88]]],
  ],
];
