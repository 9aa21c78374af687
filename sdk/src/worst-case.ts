/**
 * The worst case of a direct-to-provider call, before it is made (design decision 11): the relay's rules
 * on the same reading of the request. The call's shape comes from core/admission/call-shape with the
 * provider's own request-shape reader (both Buffer-free, bundled); its token bounds from
 * core/admission/request-bound; priced by the SDK's price table at the dearest tier the request can
 * trigger (`service_tier: "priority"`) and, for a request that asks for cache writes, all its input at the
 * cache-write rate. The readers come in as an argument: they are loaded on demand
 * (`load-admission-readers.ts`), this module is not. Reserved against the budget lease (lease.ts), replaced by the actual cost at the end.
 *
 * The cheap bound (body bytes as input tokens) first; the precise one (the prompt by the family's ratio)
 * only when the cheap one does not fit comfortably in what the slice has left, as the relay does.
 * A body the SDK cannot read (a stream, a form, a `Request` object's body) is bounded by its path
 * (model, batch endpoints) and output alone. A call billed after it returns (batch, fine-tuning,
 * `background`) has no bound: the caller refuses it under a hard cap, as the relay does.
 */
import type { CallShape } from '../../core/admission/call-shape';
import type { TokenBound } from '../../core/admission/request-bound';
import { requestFlavorOf } from '../../core/providers/catalog';
import type { DeferredBilling } from '../../core/providers/request-shape/types';
import { makeUsage, requestedModel } from '../../core/usage/normalize';
import { usageContextOf, type CallFacts } from './event';
import type { AdmissionReaders } from './load-admission-readers';
import { estimateCost } from './pricing';

const EMPTY = new Uint8Array(0);

/** A call's worst case: its cost in nano-USD, or the deferred billing that leaves it unbounded. */
export type WorstCase =
  | { readonly kind: 'bounded'; readonly nanos: number }
  | { readonly kind: 'deferred'; readonly billing: DeferredBilling };

function priced(
  facts: CallFacts,
  model: string | null,
  shape: CallShape | undefined,
  bound: TokenBound,
): number {
  const cacheWrite = shape?.cacheWrite ?? null;
  const usage = makeUsage({
    model,
    inputTokens: bound.inputTokens,
    outputTokens: bound.outputTokens,
    serviceTier: shape?.serviceTier ?? null,
    // Every input token written to the dearest cache the request asks for (writes cost more than input).
    cacheWrite5mTokens: cacheWrite === '5m' ? bound.inputTokens : 0,
    cacheWrite1hTokens: cacheWrite === '1h' ? bound.inputTokens : 0,
  });
  return estimateCost(facts.provider.id, model ?? '', usage, facts.startedAt).costNanos;
}

/**
 * The call's worst case; `availableNanos` is what the slice has left (the precise bound is computed only
 * when the cheap one takes more than a quarter of it); `allowDeferred`: the organization lets calls that
 * bill later through under its cap (bounded like others).
 */
export function worstCaseOf(
  facts: CallFacts,
  availableNanos: number,
  allowDeferred: boolean,
  readers: AdmissionReaders,
): WorstCase {
  const flavor = requestFlavorOf(facts.provider, facts.url);
  const buf = facts.body === undefined ? EMPTY : readers.utf8Bytes(facts.body);
  // A body the relay would refuse (invalid JSON, a member twice) is bounded without a shape, as there.
  const read = readers.callShapeOf(buf, facts.path, readers.requestShapeReaderOf(facts.provider, flavor));
  const shape = read.ok ? read.shape : undefined;
  // Allowed by the organization (its lease answer says so): bounded as an ordinary call, as at the relay.
  if (shape?.deferred != null && !allowDeferred) return { kind: 'deferred', billing: shape.deferred };
  let model: string | null = shape?.model ?? null;
  if (model === null) {
    try {
      model = requestedModel(usageContextOf(facts));
    } catch {
      // no model in the request: the generous defaults
    }
  }
  const cheap = priced(facts, model, shape, readers.cheapTokenBound(buf, shape, model));
  if (cheap * 4 <= availableNanos || facts.body === undefined) return { kind: 'bounded', nanos: cheap };
  const precise = readers.preciseTokenBound(buf, shape, flavor, model);
  return {
    kind: 'bounded',
    nanos: precise === undefined ? cheap : Math.min(cheap, priced(facts, model, shape, precise)),
  };
}
