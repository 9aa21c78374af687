/**
 * The worst-case cost of a direct-to-provider call, before it is made (design decision 11): the relay's
 * token bounds (core/admission/request-bound.ts, bundled) priced by the SDK's price table at the full input
 * and output rates. Reserved against the budget lease (lease.ts), replaced by the actual cost at the end.
 *
 * The cheap bound (body bytes as input tokens) first; the precise one (the prompt by the family's ratio)
 * only when the cheap one does not fit comfortably in what the slice has left, as the relay does.
 * A body the SDK cannot read (a stream, a form, a `Request` object's body) is bounded by its output alone.
 */
import {
  cheapTokenBound,
  preciseTokenBound,
  utf8Bytes,
  type TokenBound,
} from '../../core/admission/request-bound';
import { requestFlavorOf } from '../../core/providers/catalog';
import { requestedModel } from '../../core/usage/normalize';
import { makeUsage } from '../../core/usage/normalize';
import { requestValue, usageContextOf, type CallFacts } from './event';
import { estimateCost } from './pricing';

const EMPTY = new Uint8Array(0);

function priced(facts: CallFacts, model: string | null, bound: TokenBound): number {
  const usage = makeUsage({ model, inputTokens: bound.inputTokens, outputTokens: bound.outputTokens });
  return estimateCost(facts.provider.id, model ?? '', usage, facts.startedAt).costNanos;
}

/**
 * The call's worst case in nano-USD; `availableNanos` is what the slice has left (the precise bound is
 * computed only when the cheap one takes more than a quarter of it).
 */
export function worstCaseNanos(facts: CallFacts, availableNanos: number): number {
  let model: string | null = null;
  try {
    model = requestedModel(usageContextOf(facts));
  } catch {
    // no model in the request: the generous defaults
  }
  const buf = facts.body === undefined ? EMPTY : utf8Bytes(facts.body);
  const cheap = priced(facts, model, cheapTokenBound(buf, model));
  if (cheap * 4 <= availableNanos || facts.body === undefined) return cheap;
  const precise = preciseTokenBound(
    buf,
    requestValue(facts),
    requestFlavorOf(facts.provider, facts.url),
    model,
  );
  return precise === undefined ? cheap : Math.min(cheap, priced(facts, model, precise));
}
