/**
 * What an organization's reasoning calls typically cost in hidden tokens, learned from its own calls that
 * reported usage (issue 18.8): per organization, model and effort, a moving mean of the reported
 * `reasoningTokens`. A stream of the same model and effort that ends without usage is then estimated at
 * that figure rather than at a ratio of its visible text. Pure: the caller keeps the table and passes it
 * back; bounded to {@link MAX_BASELINES} entries (least recently observed evicted).
 */
import type { ReasoningEffort } from './reasoning-allowance';

/** Entries kept per table (one relay container): an organization uses a handful of models. */
export const MAX_BASELINES = 512;
/** The mean weighs the last ~this many calls (an exponential moving mean after the first ones). */
export const BASELINE_WINDOW = 20;
/** Observations before a learned figure is used (fewer say too little). */
export const MIN_OBSERVATIONS = 3;

interface Baseline {
  readonly mean: number;
  readonly count: number;
}

/** Learned typical reasoning tokens, keyed by organization, model and effort. */
export class ReasoningBaseline {
  private readonly table = new Map<string, Baseline>();

  /** Records what one call reported. Ignores non-finite or negative figures. */
  observe(orgId: string, model: string, effort: ReasoningEffort, reasoningTokens: number): void {
    if (!Number.isFinite(reasoningTokens) || reasoningTokens < 0) return;
    const key = keyOf(orgId, model, effort);
    const prev = this.table.get(key);
    const count = (prev?.count ?? 0) + 1;
    const weight = 1 / Math.min(count, BASELINE_WINDOW);
    const mean = prev === undefined ? reasoningTokens : prev.mean + (reasoningTokens - prev.mean) * weight;
    this.table.delete(key); // re-inserted last: Map order is the recency order
    this.table.set(key, { mean, count });
    if (this.table.size > MAX_BASELINES) this.table.delete(this.table.keys().next().value as string);
  }

  /** The learned figure, once {@link MIN_OBSERVATIONS} calls reported one; else undefined. */
  typical(orgId: string, model: string, effort: ReasoningEffort): number | undefined {
    const b = this.table.get(keyOf(orgId, model, effort));
    return b !== undefined && b.count >= MIN_OBSERVATIONS ? Math.ceil(b.mean) : undefined;
  }

  /** Entries held (for tests and metrics). */
  get size(): number {
    return this.table.size;
  }
}

function keyOf(orgId: string, model: string, effort: ReasoningEffort): string {
  return `${orgId}\u0000${model.toLowerCase()}\u0000${effort}`;
}
