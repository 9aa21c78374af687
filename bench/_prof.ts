import { calculateCost, getDefaultPriceRegistry, type CostInput } from '../core/pricing';
const registry = getDefaultPriceRegistry();
const mk = (provider: string, model: string, tier: string): CostInput => ({ provider, at: Date.UTC(2025, 9, 1), usage: { model, inputTokens: 5000, cacheReadTokens: 2000, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, outputTokens: 500, reasoningTokens: 0, serviceTier: tier } });
const events = [mk('openai', 'gpt-4o-2024-08-06', 'default'), mk('anthropic', 'claude-sonnet-4-20250514', 'standard'), mk('gemini', 'models/gemini-2.5-pro', 'default'), mk('deepseek', 'deepseek-chat', 'default')];
function run(n: number, f: (e: CostInput) => number) { let s = 0; const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) s += f(events[i & 3]!); return [Number(process.hrtime.bigint() - t) / n, s]; }
for (let k = 0; k < 5; k++) run(1e6, (e) => calculateCost(e, registry).costNanos);
console.log('calculateCost', run(3e6, (e) => calculateCost(e, registry).costNanos)[0]);
console.log('resolve only', run(3e6, (e) => registry.resolve(e.provider, e.usage.model ?? null).matchedModel.length)[0]);
