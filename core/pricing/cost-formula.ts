/**
 * The cost formula, apart from price resolution so that the SDK can bundle it without the registry:
 * `cost = uncached input × input price + cache reads × read price + 5 m / 1 h writes × write prices
 * + output × output price` (reasoning at its own rate where a model has one), long-context cliff applied
 * to all tokens, scaled by the service tier's rational multiplier, each component rounded half-up once
 * to integer nano-USD; plus the fees beyond tokens (web searches × per-search list price), flat per
 * request: no tier multiplier or long-context band applies to them.
 */
import type { NormalizedUsage } from '../usage/types';
import { ratesForPrompt, type ModelPrice } from './model-price';
import { PICOS_PER_NANO, picoTermsToNanos } from './money';
import type { Rational } from './tiers';

/** The token counts the formula reads. */
export type FormulaUsage = Pick<
  NormalizedUsage,
  | 'inputTokens'
  | 'cacheReadTokens'
  | 'cacheWrite5mTokens'
  | 'cacheWrite1hTokens'
  | 'outputTokens'
  | 'reasoningTokens'
> & {
  /** Server-side web searches (Anthropic `server_tool_use.web_search_requests`); absent = 0. */
  readonly webSearchRequests?: number;
};

export interface FormulaResult {
  readonly inputNanos: number;
  readonly cacheReadNanos: number;
  readonly cacheWriteNanos: number;
  readonly outputNanos: number;
  /** Fees beyond tokens: web searches × the model's per-search price (flat: no tier or band applies). */
  readonly toolFeesNanos: number;
  /** Sum of the five, saturated at Number.MAX_SAFE_INTEGER. */
  readonly totalNanos: number;
  /** True when a long-context band applied. */
  readonly longContext: boolean;
}

/** A token count as a non-negative safe integer (invalid → 0, fractional → rounded up). */
function tokens(value: number): number {
  if (!(value > 0)) return 0;
  return value < Number.MAX_SAFE_INTEGER ? Math.ceil(value) : Number.MAX_SAFE_INTEGER;
}

/** Applies one resolved price and tier multiplier to a call's usage. Never throws. */
export function applyPrice(price: ModelPrice, multiplier: Rational, usage: FormulaUsage): FormulaResult {
  const cacheRead = tokens(usage.cacheReadTokens);
  const cacheWrite5m = tokens(usage.cacheWrite5mTokens);
  const cacheWrite1h = tokens(usage.cacheWrite1hTokens);
  const inputTokens = tokens(usage.inputTokens);
  const outputTokens = tokens(usage.outputTokens);
  const reasoning = Math.min(tokens(usage.reasoningTokens), outputTokens);
  const cachedParts = cacheRead + cacheWrite5m + cacheWrite1h;
  const uncached = inputTokens > cachedParts ? inputTokens - cachedParts : 0;
  const rates = ratesForPrompt(price, uncached + cachedParts);
  const { num, den } = multiplier;

  const inputNanos = picoTermsToNanos(uncached, rates.input, 0, 0, num, den);
  const cacheReadNanos = picoTermsToNanos(cacheRead, rates.cacheRead, 0, 0, num, den);
  const cacheWriteNanos = picoTermsToNanos(
    cacheWrite5m,
    rates.cacheWrite5m,
    cacheWrite1h,
    rates.cacheWrite1h,
    num,
    den,
  );
  const outputNanos = picoTermsToNanos(
    outputTokens - reasoning,
    rates.output,
    reasoning,
    rates.reasoning,
    num,
    den,
  );
  const toolFeesNanos = picoTermsToNanos(
    tokens(usage.webSearchRequests ?? 0),
    (price.webSearchNanos ?? 0) * PICOS_PER_NANO,
    0,
    0,
    1,
    1,
  );
  const total = inputNanos + cacheReadNanos + cacheWriteNanos + outputNanos + toolFeesNanos;
  return {
    inputNanos,
    cacheReadNanos,
    cacheWriteNanos,
    outputNanos,
    toolFeesNanos,
    totalNanos: total > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : total,
    longContext: rates !== price.base,
  };
}
