/**
 * The registry of the five guardrail layers, in evaluation order. Everything that lists layers
 * (the engine, the policy defaults, the state bound, the docs' table) is derived from it.
 */
import { contextGrowthLayer } from './context-growth';
import type { ContextGrowthPolicy, ContextGrowthState } from './context-growth';
import { financialLimitsLayer } from './financial-limits';
import type { FinancialLimitsPolicy, FinancialLimitsState } from './financial-limits';
import { identicalLoopLayer } from './identical-loop';
import type { IdenticalLoopPolicy, IdenticalLoopState } from './identical-loop';
import { premiumConcentrationLayer } from './premium-concentration';
import type { PremiumConcentrationPolicy, PremiumConcentrationState } from './premium-concentration';
import { rpsBurstLayer } from './burst';
import type { RpsBurstPolicy, RpsBurstState } from './burst';
import type { GuardrailLayer, LayerId } from './types';

/** Each layer's slice of an organization's state. */
export interface LayerStates {
  financialLimits: FinancialLimitsState;
  identicalLoop: IdenticalLoopState;
  contextGrowth: ContextGrowthState;
  rpsBurst: RpsBurstState;
  premiumConcentration: PremiumConcentrationState;
}

/** Each layer's section of an organization's policy. */
export interface LayerPolicies {
  financialLimits: FinancialLimitsPolicy;
  identicalLoop: IdenticalLoopPolicy;
  contextGrowth: ContextGrowthPolicy;
  rpsBurst: RpsBurstPolicy;
  premiumConcentration: PremiumConcentrationPolicy;
}

export type LayerRegistry = { readonly [K in LayerId]: GuardrailLayer<LayerStates[K], LayerPolicies[K], K> };

export const GUARDRAIL_LAYERS: LayerRegistry = Object.freeze({
  financialLimits: financialLimitsLayer,
  identicalLoop: identicalLoopLayer,
  contextGrowth: contextGrowthLayer,
  rpsBurst: rpsBurstLayer,
  premiumConcentration: premiumConcentrationLayer,
});

/** Layer ids in evaluation order (the spec's layer numbers 1–5). */
export const LAYER_IDS: readonly LayerId[] = Object.freeze(
  (Object.keys(GUARDRAIL_LAYERS) as LayerId[]).sort(
    (a, b) => GUARDRAIL_LAYERS[a].ordinal - GUARDRAIL_LAYERS[b].ordinal,
  ),
);
