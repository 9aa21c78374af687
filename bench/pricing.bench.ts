/**
 * Pricing throughput: ns per event for `calculateCost` after warm-up (target ≤ 2,000 ns), beside
 * genai-prices' `calcPrice` on the same events, over a realistic mix of providers and models
 * (dated snapshots, cache reads and writes, reasoning, long prompts, batch/priority, unknown models).
 *
 * Run: npx tsx bench/index.ts pricing
 */
import { calcPrice } from '@pydantic/genai-prices';
import {
  calculateCost,
  compileOrgRates,
  createPriceRegistry,
  getDefaultPriceRegistry,
  type CostInput,
  type PricingUsage,
} from '../core/pricing';

const TARGET_NS = 2_000;

/** [weight, provider, model] — roughly the traffic shape of an agent-heavy organization. */
const MIX: readonly (readonly [number, string, string])[] = [
  [14, 'openai', 'gpt-4o-mini-2024-07-18'],
  [10, 'openai', 'gpt-4o-2024-08-06'],
  [8, 'openai', 'gpt-5-mini'],
  [6, 'openai', 'gpt-5'],
  [4, 'openai', 'o4-mini'],
  [2, 'openai', 'gpt-4.1-nano'],
  [2, 'openai', 'ft:gpt-4o-mini-2024-07-18:acme::9xZ1'],
  [12, 'anthropic', 'claude-sonnet-4-20250514'],
  [6, 'anthropic', 'claude-haiku-4-5-20251001'],
  [3, 'anthropic', 'claude-opus-4-1-20250805'],
  [2, 'anthropic', 'us.anthropic.claude-sonnet-4-20250514-v1:0'],
  [6, 'gemini', 'gemini-2.5-flash'],
  [3, 'gemini', 'models/gemini-2.5-pro'],
  [4, 'openrouter', 'anthropic/claude-3.5-sonnet'],
  [3, 'openrouter', 'openai/gpt-4o'],
  [2, 'openrouter', 'google/gemini-2.5-flash'],
  [3, 'groq', 'llama-3.3-70b-versatile'],
  [2, 'together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo'],
  [2, 'mistral', 'mistral-large-latest'],
  [2, 'deepseek', 'deepseek-chat'],
  [2, 'xai', 'grok-4'],
  [2, 'llama', 'Llama-4-Maverick-17B-128E-Instruct-FP8'],
  [1, 'openai', 'internal-experimental-model'],
];

const DATASET_ID: Readonly<Record<string, string>> = { gemini: 'google', xai: 'x-ai' };

/** Deterministic pseudo-random numbers (mulberry32) so every run prices the same events. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function buildEvents(count: number): CostInput[] {
  const rand = random(42);
  const totalWeight = MIX.reduce((sum, [weight]) => sum + weight, 0);
  const events: CostInput[] = [];
  for (let i = 0; i < count; i++) {
    let pick = rand() * totalWeight;
    const entry = MIX.find(([weight]) => (pick -= weight) < 0) ?? MIX[0];
    const [, provider, model] = entry as (typeof MIX)[number];
    const long = rand() < 0.03; // a few long-context prompts
    const inputTokens = Math.floor(long ? 200_000 + rand() * 100_000 : 200 + rand() * 20_000);
    const cacheReadTokens = rand() < 0.5 ? Math.floor(inputTokens * rand() * 0.8) : 0;
    const writes =
      provider === 'anthropic' && rand() < 0.2 ? Math.floor((inputTokens - cacheReadTokens) * 0.5) : 0;
    const outputTokens = Math.floor(20 + rand() * 2_000);
    const usage: PricingUsage = {
      model,
      inputTokens,
      cacheReadTokens,
      cacheWrite5mTokens: rand() < 0.7 ? writes : 0,
      cacheWrite1hTokens: rand() < 0.3 ? writes : 0,
      outputTokens,
      reasoningTokens: /o4|gpt-5/.test(model) ? Math.floor(outputTokens * 0.6) : 0,
      serviceTier: rand() < 0.05 ? 'batch' : rand() < 0.02 ? 'priority' : 'default',
    };
    // Same object shape with and without org rates, as in the pipeline (monomorphic call sites).
    events.push({
      provider,
      usage,
      at: Date.UTC(2025, 9, 1) + Math.floor(rand() * 86_400_000 * 30),
      orgRates: null,
    });
  }
  return events;
}

function nsPerEvent(
  events: readonly CostInput[],
  iterations: number,
  price: (event: CostInput) => number,
): number {
  let checksum = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) checksum += price(events[i % events.length] as CostInput);
  const elapsed = Number(process.hrtime.bigint() - start);
  if (checksum < 0) console.log('impossible', checksum); // keeps the loop observable
  return elapsed / iterations;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export default async function (): Promise<void> {
  const buildStart = process.hrtime.bigint();
  const registry = getDefaultPriceRegistry();
  const buildMs = Number(process.hrtime.bigint() - buildStart) / 1e6;

  const events = buildEvents(10_000);
  const ours = (event: CostInput): number => calculateCost(event, registry).costNanos;
  const orgRates = compileOrgRates({
    multiplier: 0.85,
    models: { 'openai:gpt-4o': { inputUsdPerMTok: 2, outputUsdPerMTok: 8 } },
  });
  const orgEvents = events.map((event) => ({ ...event, orgRates }));
  const genai = (event: CostInput): number => {
    const u = event.usage;
    const result = calcPrice(
      {
        input_tokens: u.inputTokens,
        cache_read_tokens: u.cacheReadTokens,
        cache_write_tokens: u.cacheWrite5mTokens + u.cacheWrite1hTokens,
        cache_write_1h_tokens: u.cacheWrite1hTokens,
        output_tokens: u.outputTokens,
      },
      u.model ?? '',
      { providerId: DATASET_ID[event.provider] ?? event.provider, timestamp: new Date(event.at) },
    );
    return result?.total_price ?? 0;
  };

  // Warm-up: resolve every pair, let the JIT settle.
  for (let round = 0; round < 5; round++) nsPerEvent(events, events.length * 10, ours);
  nsPerEvent(orgEvents, orgEvents.length * 5, ours);
  nsPerEvent(events, 5_000, genai);

  const runs = 7;
  const oursNs = median(Array.from({ length: runs }, () => nsPerEvent(events, 1_000_000, ours)));
  const orgNs = median(Array.from({ length: runs }, () => nsPerEvent(orgEvents, 1_000_000, ours)));
  const genaiNs = median(Array.from({ length: 3 }, () => nsPerEvent(events, 20_000, genai)));

  // First sight of a (provider, model) pair: normalization + match scan, once per pair per registry.
  const fresh = createPriceRegistry(undefined, { resolutionCacheSize: 100_000 });
  const names = Array.from(
    { length: 2_000 },
    (_, i) => [MIX[i % MIX.length] as (typeof MIX)[number], i] as const,
  );
  const coldStart = process.hrtime.bigint();
  for (const [[, provider, model], i] of names) fresh.resolve(provider, `${model}-v${i}`);
  const coldUs = Number(process.hrtime.bigint() - coldStart) / names.length / 1_000;

  const fallbackShare =
    events.filter(
      (e) => registry.resolve(e.provider, e.usage.model ?? null).costSource === 'FALLBACK_ECONOMICS',
    ).length / events.length;
  const row = (label: string, value: string, target: string): string =>
    `${label.padEnd(52)}${value.padStart(14)}   ${target}`;
  console.log(
    `${events.length} distinct events, ${MIX.length} (provider, model) pairs, ${(fallbackShare * 100).toFixed(1)} % fallback`,
  );
  console.log(row('metric', 'measured', 'target'));
  console.log(
    row(
      'calculateCost, warm (median of 7 × 1M events)',
      `${oursNs.toFixed(0)} ns`,
      `≤ ${TARGET_NS} ns ${oursNs <= TARGET_NS ? 'OK' : 'MISSED'}`,
    ),
  );
  console.log(
    row(
      'calculateCost with compiled org rates',
      `${orgNs.toFixed(0)} ns`,
      `≤ ${TARGET_NS} ns ${orgNs <= TARGET_NS ? 'OK' : 'MISSED'}`,
    ),
  );
  console.log(
    row('genai-prices calcPrice, same events (median of 3 × 20k)', `${genaiNs.toFixed(0)} ns`, '(reference)'),
  );
  console.log(row('speed-up over calcPrice', `${(genaiNs / oursNs).toFixed(0)}×`, ''));
  console.log(
    row('first resolution of an unseen (provider, model) pair', `${coldUs.toFixed(1)} µs`, '(once per pair)'),
  );
  console.log(
    row('registry build from bundled data (cold start)', `${buildMs.toFixed(1)} ms`, '(once per process)'),
  );
}
