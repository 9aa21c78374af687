// GENERATED FILE — DO NOT EDIT. Source: core/pricing (genai-prices data + supplements),
// generator: sdk/scripts/gen-prices.ts. Regenerate with `npx tsx sdk/scripts/gen-prices.ts`.
/* eslint-disable */

/** Integer pico-USD per token: input, output, reasoning, cache read, 5-minute write, 1-hour write. */
export type CompactRates = readonly [number, number, number, number, number, number];

/** `[constraint, base, long-context bands?]`; constraint `['s', startMs]` or `['t', startSecond, endSecond]`. */
export type CompactPeriod = readonly [
  readonly [string, number, number?] | null,
  CompactRates,
  (readonly (readonly [number, CompactRates])[])?,
];

/** `[provider, model as sent (lower case), matched dataset model, periods]`. */
export type PriceRow = readonly [string, string, string, readonly CompactPeriod[]];

export const PRICE_ROWS: readonly PriceRow[] = [
  ['openai', 'gpt-4o', 'gpt-4o', [[null, [2500000, 10000000, 10000000, 1250000, 2500000, 2500000]]]],
  ['openai', 'gpt-4o-mini', 'gpt-4o-mini', [[null, [150000, 600000, 600000, 75000, 150000, 150000]]]],
  [
    'openai',
    'gpt-4o-2024-05-13',
    'gpt-4o-2024-05-13',
    [[null, [5000000, 15000000, 15000000, 5000000, 5000000, 5000000]]],
  ],
  [
    'openai',
    'chatgpt-4o-latest',
    'chatgpt-4o-latest',
    [[null, [5000000, 15000000, 15000000, 5000000, 5000000, 5000000]]],
  ],
  ['openai', 'gpt-4.1', 'gpt-4.1', [[null, [2000000, 8000000, 8000000, 500000, 2000000, 2000000]]]],
  ['openai', 'gpt-4.1-mini', 'gpt-4.1-mini', [[null, [400000, 1600000, 1600000, 100000, 400000, 400000]]]],
  ['openai', 'gpt-4.1-nano', 'gpt-4.1-nano', [[null, [100000, 400000, 400000, 25000, 100000, 100000]]]],
  ['openai', 'gpt-5', 'gpt-5', [[null, [1250000, 10000000, 10000000, 125000, 1250000, 1250000]]]],
  ['openai', 'gpt-5-mini', 'gpt-5-mini', [[null, [250000, 2000000, 2000000, 25000, 250000, 250000]]]],
  ['openai', 'gpt-5-nano', 'gpt-5-nano', [[null, [50000, 400000, 400000, 5000, 50000, 50000]]]],
  ['openai', 'gpt-5.1', 'gpt-5.1', [[null, [1250000, 10000000, 10000000, 125000, 1250000, 1250000]]]],
  ['openai', 'gpt-5.2', 'gpt-5.2', [[null, [1750000, 14000000, 14000000, 175000, 1750000, 1750000]]]],
  [
    'openai',
    'gpt-5.4',
    'gpt-5.4',
    [
      [
        null,
        [2500000, 15000000, 15000000, 250000, 2500000, 2500000],
        [[271999, [5000000, 22500000, 22500000, 500000, 5000000, 5000000]]],
      ],
    ],
  ],
  ['openai', 'gpt-5.4-mini', 'gpt-5.4-mini', [[null, [750000, 4500000, 4500000, 75000, 750000, 750000]]]],
  ['openai', 'o1', 'o1', [[null, [15000000, 60000000, 60000000, 7500000, 15000000, 15000000]]]],
  [
    'openai',
    'o3',
    'o3',
    [
      [null, [10000000, 40000000, 40000000, 500000, 10000000, 10000000]],
      [
        ['s', 1749513600000],
        [2000000, 8000000, 8000000, 500000, 2000000, 2000000],
      ],
    ],
  ],
  ['openai', 'o3-mini', 'o3-mini', [[null, [1100000, 4400000, 4400000, 550000, 1100000, 1100000]]]],
  ['openai', 'o4-mini', 'o4-mini', [[null, [1100000, 4400000, 4400000, 275000, 1100000, 1100000]]]],
  [
    'openai',
    'gpt-4-turbo',
    'gpt-4-turbo',
    [[null, [10000000, 30000000, 30000000, 10000000, 10000000, 10000000]]],
  ],
  ['openai', 'gpt-4', 'gpt-4', [[null, [30000000, 60000000, 60000000, 30000000, 30000000, 30000000]]]],
  ['openai', 'gpt-3.5-turbo', 'gpt-3.5-turbo', [[null, [500000, 1500000, 1500000, 500000, 500000, 500000]]]],
  [
    'openai',
    'text-embedding-3-small',
    'text-embedding-3-small',
    [[null, [20000, 0, 0, 20000, 20000, 20000]]],
  ],
  [
    'openai',
    'text-embedding-3-large',
    'text-embedding-3-large',
    [[null, [130000, 0, 0, 130000, 130000, 130000]]],
  ],
  [
    'anthropic',
    'claude-opus-4-5',
    'claude-opus-4-5',
    [[null, [5000000, 25000000, 25000000, 500000, 6250000, 10000000]]],
  ],
  [
    'anthropic',
    'claude-opus-4-1',
    'claude-opus-4-1',
    [[null, [15000000, 75000000, 75000000, 1500000, 18750000, 30000000]]],
  ],
  [
    'anthropic',
    'claude-opus-4-0',
    'claude-opus-4-0',
    [[null, [15000000, 75000000, 75000000, 1500000, 18750000, 30000000]]],
  ],
  [
    'anthropic',
    'claude-sonnet-4-5',
    'claude-sonnet-4-5',
    [
      [
        null,
        [3000000, 15000000, 15000000, 300000, 3750000, 6000000],
        [[200000, [6000000, 22500000, 22500000, 600000, 7500000, 12000000]]],
      ],
    ],
  ],
  [
    'anthropic',
    'claude-sonnet-4-0',
    'claude-sonnet-4-0',
    [
      [
        null,
        [3000000, 15000000, 15000000, 300000, 3750000, 6000000],
        [[200000, [6000000, 22500000, 22500000, 600000, 7500000, 12000000]]],
      ],
    ],
  ],
  [
    'anthropic',
    'claude-haiku-4-5',
    'claude-haiku-4-5',
    [[null, [1000000, 5000000, 5000000, 100000, 1250000, 2000000]]],
  ],
  [
    'anthropic',
    'claude-3-7-sonnet',
    'claude-3-7-sonnet-latest',
    [[null, [3000000, 15000000, 15000000, 300000, 3750000, 6000000]]],
  ],
  [
    'anthropic',
    'claude-3-5-sonnet',
    'claude-3-5-sonnet',
    [[null, [3000000, 15000000, 15000000, 300000, 3750000, 6000000]]],
  ],
  [
    'anthropic',
    'claude-3-5-haiku',
    'claude-3-5-haiku-latest',
    [[null, [800000, 4000000, 4000000, 80000, 1000000, 1600000]]],
  ],
  [
    'anthropic',
    'claude-3-haiku',
    'claude-3-haiku',
    [[null, [250000, 1250000, 1250000, 30000, 300000, 500000]]],
  ],
  [
    'gemini',
    'gemini-3-pro-preview',
    'gemini-3-pro-preview',
    [
      [
        null,
        [2000000, 12000000, 12000000, 200000, 2000000, 2000000],
        [[200000, [4000000, 18000000, 18000000, 400000, 4000000, 4000000]]],
      ],
    ],
  ],
  [
    'gemini',
    'gemini-2.5-pro',
    'gemini-2.5-pro',
    [
      [
        null,
        [1250000, 10000000, 10000000, 125000, 1250000, 1250000],
        [[200000, [2500000, 15000000, 15000000, 250000, 2500000, 2500000]]],
      ],
    ],
  ],
  [
    'gemini',
    'gemini-2.5-flash',
    'gemini-2.5-flash',
    [[null, [300000, 2500000, 2500000, 30000, 300000, 300000]]],
  ],
  [
    'gemini',
    'gemini-2.5-flash-lite',
    'gemini-2.5-flash-lite',
    [[null, [100000, 400000, 400000, 10000, 100000, 100000]]],
  ],
  [
    'gemini',
    'gemini-2.0-flash',
    'gemini-2.0-flash',
    [[null, [100000, 400000, 400000, 25000, 100000, 100000]]],
  ],
  [
    'gemini',
    'gemini-2.0-flash-lite',
    'gemini-2.0-flash-lite',
    [[null, [75000, 300000, 300000, 75000, 75000, 75000]]],
  ],
  [
    'gemini',
    'gemini-1.5-pro',
    'gemini-1.5-pro',
    [
      [
        null,
        [1250000, 5000000, 5000000, 1250000, 1250000, 1250000],
        [[128000, [2500000, 10000000, 10000000, 2500000, 2500000, 2500000]]],
      ],
    ],
  ],
  [
    'gemini',
    'gemini-1.5-flash',
    'gemini-1.5-flash',
    [
      [
        null,
        [75000, 300000, 300000, 18750, 75000, 75000],
        [[128000, [150000, 600000, 600000, 37500, 150000, 150000]]],
      ],
    ],
  ],
  [
    'openrouter',
    'openai/gpt-4o',
    'openai/gpt-4o',
    [[null, [2500000, 10000000, 10000000, 2500000, 2500000, 2500000]]],
  ],
  [
    'openrouter',
    'openai/gpt-4o-mini',
    'openai/gpt-4o-mini',
    [[null, [150000, 600000, 600000, 75000, 150000, 150000]]],
  ],
  [
    'openrouter',
    'anthropic/claude-sonnet-4.5',
    'anthropic/claude-sonnet-4.5',
    [
      [
        null,
        [3000000, 15000000, 15000000, 300000, 3750000, 6000000],
        [[200000, [6000000, 22500000, 22500000, 600000, 7500000, 12000000]]],
      ],
    ],
  ],
  [
    'openrouter',
    'anthropic/claude-sonnet-4',
    'anthropic/claude-sonnet-4',
    [
      [
        null,
        [3000000, 15000000, 15000000, 300000, 3750000, 6000000],
        [[200000, [6000000, 22500000, 22500000, 600000, 7500000, 12000000]]],
      ],
    ],
  ],
  [
    'openrouter',
    'google/gemini-2.5-flash',
    'google/gemini-2.5-flash',
    [[null, [300000, 2500000, 2500000, 75000, 383300, 383300]]],
  ],
  [
    'openrouter',
    'google/gemini-2.5-pro',
    'google/gemini-2.5-pro',
    [[null, [1250000, 10000000, 10000000, 310000, 1625000, 1625000]]],
  ],
  [
    'openrouter',
    'deepseek/deepseek-chat',
    'deepseek/deepseek-chat',
    [[null, [380000, 890000, 890000, 380000, 380000, 380000]]],
  ],
  [
    'openrouter',
    'meta-llama/llama-3.3-70b-instruct',
    'meta-llama/llama-3.3-70b-instruct',
    [[null, [50000, 240000, 240000, 50000, 50000, 50000]]],
  ],
  [
    'groq',
    'llama-3.3-70b-versatile',
    'llama-3.3-70b-versatile',
    [[null, [590000, 790000, 790000, 590000, 590000, 590000]]],
  ],
  [
    'groq',
    'llama-3.1-8b-instant',
    'llama-3.1-8b-instant',
    [[null, [50000, 80000, 80000, 50000, 50000, 50000]]],
  ],
  [
    'groq',
    'openai/gpt-oss-120b',
    'openai/gpt-oss-120b',
    [[null, [150000, 600000, 600000, 75000, 150000, 150000]]],
  ],
  [
    'groq',
    'openai/gpt-oss-20b',
    'openai/gpt-oss-20b',
    [[null, [75000, 300000, 300000, 37500, 75000, 75000]]],
  ],
  [
    'mistral',
    'mistral-large-latest',
    'mistral-large',
    [[null, [2000000, 6000000, 6000000, 2000000, 2000000, 2000000]]],
  ],
  [
    'mistral',
    'mistral-medium-latest',
    'mistral-medium-latest',
    [
      [null, [400000, 2000000, 2000000, 40000, 400000, 400000]],
      [
        ['s', 1781568000000],
        [1500000, 7500000, 7500000, 150000, 1500000, 1500000],
      ],
    ],
  ],
  [
    'mistral',
    'mistral-small-latest',
    'mistral-small-latest',
    [[null, [100000, 300000, 300000, 100000, 100000, 100000]]],
  ],
  ['mistral', 'codestral-latest', 'codestral', [[null, [300000, 900000, 900000, 300000, 300000, 300000]]]],
  [
    'deepseek',
    'deepseek-chat',
    'deepseek-chat',
    [
      [null, [135000, 550000, 550000, 35000, 135000, 135000]],
      [
        ['t', 1800, 59400],
        [270000, 1100000, 1100000, 70000, 270000, 270000],
      ],
    ],
  ],
  [
    'deepseek',
    'deepseek-reasoner',
    'deepseek-reasoner',
    [
      [null, [135000, 550000, 550000, 35000, 135000, 135000]],
      [
        ['t', 1800, 59400],
        [550000, 2190000, 2190000, 140000, 550000, 550000],
      ],
    ],
  ],
  ['xai', 'grok-4', 'grok-4-0709', [[null, [3000000, 15000000, 15000000, 750000, 3000000, 3000000]]]],
  ['xai', 'grok-3', 'grok-3', [[null, [3000000, 15000000, 15000000, 750000, 3000000, 3000000]]]],
  ['xai', 'grok-3-mini', 'grok-3-mini', [[null, [300000, 500000, 500000, 75000, 300000, 300000]]]],
  [
    'together',
    'meta-llama/llama-3.3-70b-instruct-turbo',
    'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    [[null, [880000, 880000, 880000, 880000, 880000, 880000]]],
  ],
];
