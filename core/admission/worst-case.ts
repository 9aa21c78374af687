/**
 * The worst-case cost of a call, known before the provider is contacted (design decision 11): the most its
 * input can cost plus the most its output can cost, in integer nano-USD. Admission reserves this against
 * the hard caps; the call's actual cost replaces it once the response has been read.
 *
 * Two bounds, so the relay spends CPU only where it matters (docs/admission.md):
 * - {@link cheapWorstCase}: no parse at all. Every token of every tokenizer we know covers at least one
 *   byte of UTF-8 text, and a JSON body is at least as long as the text it carries, so the body's byte
 *   length bounds the text's tokens; images, which are short in the body and long in tokens, add
 *   {@link IMAGE_TOKEN_BOUND} each. Loose (about 4× for English prose) but O(body) native scans only.
 * - {@link preciseWorstCase}: parses the body and counts its text with the tokenizer (o200k for OpenAI
 *   models; the family's characters-per-token ratio otherwise), taking the larger of the two counts, so a
 *   tokenizer that is denser than the model's own cannot under-reserve. Used only when the cheap bound
 *   does not fit comfortably in what is left; exact for a prompt billed at the family's ratio.
 *
 * Both read the call's {@link CallShape} (one parse per call, issue 19.2). What bills is covered (issue 18.6):
 * - output: the bound the request sets (`max_tokens`, `max_completion_tokens`, `max_output_tokens`,
 *   Gemini's `maxOutputTokens`, Ollama's `num_predict`), lowered only by the documented limit of that
 *   exact model ({@link documentedMaxOutputOf}); with none set, the model family's maximum
 *   ({@link maxOutputTokensOf}); times the choices (`n`, `best_of`, `candidateCount`);
 * - input: base64 and binary parts (images, PDFs, audio) count one token per character, never below the
 *   cheap bound's count for them; server-side context (`previous_response_id`, files by id,
 *   `cachedContent`) adds the model's whole context window ({@link contextTokensOf});
 * - rates: the dearest tier the request can trigger (`service_tier: "priority"`) and, for a request with
 *   `cache_control`, its input at the cache-write rate (1-hour writes: 2× input); long-context bands;
 * - batch, fine-tuning and `background` calls bill outside the call: their bound is
 *   {@link DEFERRED_WORST_CASE_NANOS}, which no hard cap fits (the relay names the refusal).
 */
import { calculateCost, type CallPricing } from '../pricing';
import type { RequestFlavor } from '../providers/types';
import type { TokenCounter } from '../usage';
import { callShapeOf, type CallShape } from './call-shape';
import { cheapTokenBound, preciseTokenBound, type TokenBound } from './request-bound';
import { getProvider } from '../providers/catalog';
import { REQUEST_SHAPE_READERS, requestShapeReaderOf } from '../providers/request-shape';

export { IMAGE_TOKEN_BOUND, INPUT_MARGIN_TOKENS } from './request-bound';
/** The bound of a call that bills after it returns (batch, fine-tuning, background): fits under no cap. */
export const DEFERRED_WORST_CASE_NANOS = Number.MAX_SAFE_INTEGER;

/** A call to bound. */
export interface CallToBound {
  /** Spendguard provider id (prices). */
  readonly provider: string;
  readonly flavor: RequestFlavor;
  /** The model the request names, or null. */
  readonly model: string | null;
  /** The request body as sent. */
  readonly body: Uint8Array;
  /** When the call is made (dated prices). */
  readonly atMs: number;
  /** The provider path without the query, when known (Bedrock names the model and operation there). */
  readonly endpoint?: string;
  /**
   * The call's one parse (core/admission/call-shape). @default read from `body` with the flavor's reader
   * (a body the relay would refuse is then bounded by its bytes)
   */
  readonly shape?: CallShape;
  /**
   * The registry and organization rates the ledger prices this organization's calls with, so the bound is
   * in the unit the cap is counted in (issue 18.2). @default list prices from the bundled registry
   */
  readonly pricing?: CallPricing;
}

/** A bound and how it was reached. */
export interface WorstCase {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costNanos: number;
  /** `request`: the request set the output bound; `model`: the model's maximum output was used. */
  readonly outputBound: 'request' | 'model';
  /** True when the input was counted with the tokenizer (the precise bound). */
  readonly precise: boolean;
}

/** The call's shape: the one the relay read, else read now. */
function shapeOf(call: CallToBound): CallShape | undefined {
  if (call.shape !== undefined) return call.shape;
  const entry = getProvider(call.provider);
  const reader =
    entry === undefined ? REQUEST_SHAPE_READERS[call.flavor] : requestShapeReaderOf(entry, call.flavor);
  const read = callShapeOf(call.body, call.endpoint ?? '', reader);
  return read.ok ? read.shape : undefined;
}

function price(
  call: CallToBound,
  shape: CallShape | undefined,
  inputTokens: number,
  outputTokens: number,
): number {
  const cacheWrite = shape?.cacheWrite ?? null;
  return calculateCost(
    {
      provider: call.provider,
      model: call.model,
      at: call.atMs,
      serviceTier: shape?.serviceTier ?? null,
      orgRates: call.pricing?.orgRates ?? null,
      usage: {
        model: call.model,
        inputTokens,
        outputTokens,
        cacheReadTokens: 0,
        // Every input token written to the dearest cache the request asks for (writes cost more than input).
        cacheWrite5mTokens: cacheWrite === '5m' ? inputTokens : 0,
        cacheWrite1hTokens: cacheWrite === '1h' ? inputTokens : 0,
        reasoningTokens: 0,
      },
    },
    call.pricing?.registry,
  ).costNanos;
}

function deferred(shape: CallShape | undefined, precise: boolean): WorstCase | undefined {
  if (shape?.deferred == null) return undefined;
  return {
    inputTokens: 0,
    outputTokens: 0,
    costNanos: DEFERRED_WORST_CASE_NANOS,
    outputBound: 'request',
    precise,
  };
}

/**
 * The cheap bound: body bytes as input tokens. No JSON parse, no tokenizer.
 *
 * @example
 * // a 1,000-byte gpt-4o-mini chat body with max_tokens 100: input ≤ 1,000 + 16 tokens, output ≤ 100
 * // → 1,016 × $0.15/MTok + 100 × $0.60/MTok = 152,400 + 60,000 nanos = $0.0002124
 */
export function cheapWorstCase(call: CallToBound): WorstCase {
  const shape = shapeOf(call);
  const late = deferred(shape, false);
  if (late !== undefined) return late;
  return priced(call, shape, cheapTokenBound(call.body, shape, call.model), false);
}

/**
 * The precise bound: the prompt counted with `counter` (when given) and by the family's
 * characters-per-token ratio, the larger of the two, plus images, binary parts by size, server-side
 * context and the margin. Falls back to the cheap bound for a body that was not parsed (not JSON, or over
 * the parse bound).
 */
export function preciseWorstCase(call: CallToBound, counter: TokenCounter | undefined): WorstCase {
  const shape = shapeOf(call);
  const bound = preciseTokenBound(call.body, shape, call.flavor, call.model, counter);
  if (bound === undefined) return cheapWorstCase(call);
  return deferred(shape, true) ?? priced(call, shape, bound, true);
}

function priced(call: CallToBound, shape: CallShape | undefined, b: TokenBound, precise: boolean): WorstCase {
  return {
    inputTokens: b.inputTokens,
    outputTokens: b.outputTokens,
    costNanos: price(call, shape, b.inputTokens, b.outputTokens),
    outputBound: b.outputBound,
    precise,
  };
}

/** What an input of `inputTokens` costs alone (the settlement of a call that failed without usage). */
export function inputCostNanos(call: CallToBound, inputTokens: number): number {
  return price(call, undefined, inputTokens, 0);
}
