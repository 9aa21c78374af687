/** core/guardrails: the five-layer runaway-agent engine (pure; no I/O, no clock, no randomness). */
export type {
  GuardrailAction,
  GuardrailEvent,
  GuardrailLayer,
  GuardrailMode,
  LayerEvent,
  LayerId,
  LayerPolicyView,
  StepResult,
  TriggerType,
  Verdict,
  VerdictScope,
} from './types';
export { ACTION_BY_MODE } from './types';
export { applyEvent, applyEvents, prepareEvent } from './engine';
export type { ApplyBatchResult, ApplyOutcome, ApplyResult } from './engine';
export { initialOrgState, maxStateBytes, reviveOrgState } from './state';
export type { OrgGuardrailState } from './state';
export {
  DEFAULT_POLICY,
  GuardrailPolicyError,
  guardrailPolicySchema,
  isPolicyField,
  parseGuardrailPolicy,
  stateLimitsPolicySchema,
} from './policy';
export type { GuardrailPolicy, GuardrailPolicyInput } from './policy';
export type { StateLimitsPolicy } from './state-limits';
export { GuardrailError } from './errors';
export { GUARDRAIL_LAYERS, LAYER_IDS } from './layers';
export type { LayerPolicies, LayerRegistry, LayerStates } from './layers';
export {
  FLAG_TTL_MS,
  correctedFinancialSpend,
  financialBlockState,
  financialLimitsLayer,
  financialLimitsPolicySchema,
} from './financial-limits';
export type { FinancialBlockState, FinancialLimitsPolicy, FinancialLimitsState } from './financial-limits';
export { identicalLoopLayer, identicalLoopPolicySchema } from './identical-loop';
export type { IdenticalLoopPolicy, IdenticalLoopState } from './identical-loop';
export { contextGrowthLayer, contextGrowthPolicySchema, linearIncrements } from './context-growth';
export type { ContextGrowthPolicy, ContextGrowthState } from './context-growth';
export { advanceBurstRing, rpsBurstLayer, rpsBurstPolicySchema } from './burst';
export type { RpsBurstPolicy, RpsBurstState } from './burst';
export { premiumConcentrationLayer, premiumConcentrationPolicySchema } from './premium-concentration';
export type { PremiumConcentrationPolicy, PremiumConcentrationState } from './premium-concentration';
export { compareSequenceNumbers, eventSequenceNumber, isSequenceNumber } from './sequence';
export { STATE_BYTES_LIMIT } from './limits';
export { NANOS_PER_USD, nanosToUsd, usdToNanos } from './money';
