/**
 * The reasoning allowance of an estimate: a reasoning model (OpenAI o-series and GPT-5, DeepSeek R1,
 * Grok mini/4, …) thinks in tokens it bills as output but never streams, so a stream that ends without a
 * usage frame shows only the visible answer. Estimated from the visible text alone, an o3 call is about
 * 90 % too low. The allowance adds hidden reasoning tokens in proportion to the visible output:
 *
 *   reasoning = RATIO[effort] × visible output, capped so that visible + reasoning ≤ the request's
 *   `max_completion_tokens` / `max_output_tokens` / `max_tokens` (the provider's own cap on both)
 *
 * The ratios are central values of published observations of reasoning-to-visible token ratios on
 * reasoning models (typically 5–20× at the default effort: OpenAI's reasoning guide and community
 * measurements; lower at low effort, higher at high effort). They are estimates, flagged as such
 * (`estimated: true`); docs/usage.md gives the measured error on the fixtures. The result is never
 * below what was visibly streamed.
 */
import { asObject, asString, field } from './json-fields';

/** `reasoning_effort` (Chat Completions) / `reasoning.effort` (Responses) values. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * Hidden reasoning tokens per visible output token, by effort. `medium` (10×) is the geometric middle
 * of the 5–20× usually observed at the default effort, so its error stays within −48 % … +83 % of
 * the output for any true ratio in that range.
 */
export const REASONING_TOKENS_PER_VISIBLE_TOKEN: Readonly<Record<ReasoningEffort, number>> = Object.freeze({
  none: 0,
  minimal: 1,
  low: 3,
  medium: 10,
  high: 20,
  xhigh: 30,
});

/**
 * Typical hidden reasoning tokens of one call, by effort: the floor of the allowance (issue 18.8). A short
 * visible answer (a classification, a tool call) says nothing about the reasoning behind it, so the ratio
 * alone recorded an o3 call with a 10-token answer and 2,000 reasoning tokens at 2.4 % of its bill.
 * Central figures of published observations of per-call reasoning use (OpenAI's reasoning guide shows
 * calls of about one to a few thousand reasoning tokens at medium effort and advises reserving 25,000);
 * replaced by what the organization's own calls reported when the relay has learned it
 * ({@link ReasoningBaseline}).
 */
export const TYPICAL_REASONING_TOKENS: Readonly<Record<ReasoningEffort, number>> = Object.freeze({
  none: 0,
  minimal: 0,
  low: 256,
  medium: 1_536,
  high: 3_072,
  xhigh: 6_144,
});

/** Learned typical reasoning tokens of a model at an effort, or undefined when nothing was learned. */
export type TypicalReasoning = (model: string, effort: ReasoningEffort) => number | undefined;

/** Models that reason in hidden tokens (names as reported or requested, vendor prefix allowed). */
const REASONING_MODEL =
  /(?:^|\/)(?:o\d(?:$|[-.])|gpt-5(?!-chat)|gpt-oss|codex|deepseek-reasoner|deepseek-r1|grok-3-mini|grok-4(?!.*non-reasoning)|qwq|magistral)/;
/** GPT-5.1 and later default to no reasoning when the request names no effort. */
const DEFAULTS_TO_NO_REASONING = /(?:^|\/)gpt-5\.\d/;

/** True when the model bills hidden reasoning tokens. */
export function isReasoningModel(model: string | null): boolean {
  return model !== null && REASONING_MODEL.test(model.toLowerCase());
}

const EFFORTS: ReadonlySet<string> = new Set(Object.keys(REASONING_TOKENS_PER_VISIBLE_TOKEN));

/** The effort the request asks for, else the model's default (`medium`; `none` for GPT-5.1+). */
export function reasoningEffortOf(request: unknown, model: string): ReasoningEffort {
  const asked =
    asString(field(request, 'reasoning_effort')) ?? asString(field(request, 'reasoning', 'effort'));
  if (asked !== undefined && EFFORTS.has(asked)) return asked as ReasoningEffort;
  return DEFAULTS_TO_NO_REASONING.test(model.toLowerCase()) ? 'none' : 'medium';
}

/** The request's cap on generated tokens (reasoning included), or null. */
export function maxOutputTokensOf(request: unknown): number | null {
  const body = asObject(request);
  if (body === undefined) return null;
  for (const name of ['max_completion_tokens', 'max_output_tokens', 'max_tokens']) {
    const value = body[name];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.floor(value);
  }
  return null;
}

/** Visible output plus the allowance. */
export interface OutputEstimate {
  /** Visible + hidden reasoning tokens; never below `visible`. */
  readonly outputTokens: number;
  /** The hidden reasoning tokens added (part of outputTokens). */
  readonly reasoningTokens: number;
}

/**
 * The output of a reasoning-model stream that carried no usage: the visible tokens plus the larger of
 * {@link REASONING_TOKENS_PER_VISIBLE_TOKEN}[effort] × visible and the typical reasoning of one call (what
 * the organization's calls of that model and effort reported, else {@link TYPICAL_REASONING_TOKENS}),
 * bounded by the request's max tokens. A model that is not a reasoning model gets no allowance.
 *
 * @example
 * // o3, default effort, 192 visible tokens, no cap: 192 + max(1,920, 1,536) = 2,112
 * estimateReasoningOutput(192, 'o3', { model: 'o3' }) // { outputTokens: 2112, reasoningTokens: 1920 }
 * // o3, a 10-token answer: 10 + 1,536
 * estimateReasoningOutput(10, 'o3', { model: 'o3' }) // { outputTokens: 1546, reasoningTokens: 1536 }
 */
export function estimateReasoningOutput(
  visible: number,
  model: string | null,
  request: unknown,
  typical?: TypicalReasoning,
): OutputEstimate {
  const shown = visible > 0 ? Math.ceil(visible) : 0;
  if (model === null || !isReasoningModel(model)) return { outputTokens: shown, reasoningTokens: 0 };
  const effort = reasoningEffortOf(request, model);
  let learned: number | undefined;
  try {
    learned = typical?.(model, effort);
  } catch {
    learned = undefined;
  }
  const floor =
    learned !== undefined && Number.isFinite(learned) && learned >= 0
      ? Math.ceil(learned)
      : TYPICAL_REASONING_TOKENS[effort];
  let reasoning = Math.max(shown * REASONING_TOKENS_PER_VISIBLE_TOKEN[effort], floor);
  const max = maxOutputTokensOf(request);
  if (max !== null) reasoning = Math.min(reasoning, Math.max(0, max - shown));
  return { outputTokens: shown + reasoning, reasoningTokens: reasoning };
}
