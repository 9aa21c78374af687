/**
 * Per-organization guardrail policy: every threshold and switch of the five layers, validated
 * by one zod schema assembled from the layers' own sections. Defaults are the spec's
 * (4 identical calls, more than 10 requests per sliding minute, more than 90 % premium spend);
 * financial caps default to none (no budget configured, nothing to enforce).
 */
import { z } from 'zod';
import { contextGrowthPolicySchema } from './context-growth';
import { GuardrailError } from './errors';
import { financialLimitsPolicySchema } from './financial-limits';
import { identicalLoopPolicySchema } from './identical-loop';
import { STATE_BYTES_LIMIT } from './limits';
import { premiumConcentrationPolicySchema } from './premium-concentration';
import { rpsBurstPolicySchema } from './burst';
import { maxStateBytes } from './state';
import { stateLimitsPolicySchema } from './state-limits';

export { stateLimitsPolicySchema } from './state-limits';

const policySectionsSchema = z.object({
  financialLimits: financialLimitsPolicySchema.prefault({}),
  identicalLoop: identicalLoopPolicySchema.prefault({}),
  contextGrowth: contextGrowthPolicySchema.prefault({}),
  rpsBurst: rpsBurstPolicySchema.prefault({}),
  premiumConcentration: premiumConcentrationPolicySchema.prefault({}),
  limits: stateLimitsPolicySchema.prefault({}),
});

/** A validated policy: every field present. */
export type GuardrailPolicy = z.infer<typeof policySectionsSchema>;
/** Policy as stored or sent by the dashboard: every field optional. */
export type GuardrailPolicyInput = z.input<typeof policySectionsSchema>;

/** The policy schema: the layers' sections, and a worst-case state no larger than 64 KB. */
export const guardrailPolicySchema = policySectionsSchema.refine(
  (policy: GuardrailPolicy) => maxStateBytes(policy) <= STATE_BYTES_LIMIT,
  {
    message: `policy allows a guardrail state larger than ${STATE_BYTES_LIMIT} bytes: with more requests per burst window (rpsBurst.maxRequests) or a longer contextGrowth.window, track fewer keys or sessions (limits.maxKeys, default 64; limits.maxSessions, default 128), e.g. maxRequests 100 with maxKeys 16`,
    // Only a policy whose fields are valid can be sized (a negative maxRequests would throw here).
    when: (payload) => payload.issues.length === 0,
  },
);

/** The spec's defaults. */
export const DEFAULT_POLICY: GuardrailPolicy = Object.freeze(guardrailPolicySchema.parse({}));

/** Raised when a stored or submitted policy does not validate. */
export class GuardrailPolicyError extends GuardrailError {
  constructor(
    message: string,
    readonly issues: readonly { path: string; message: string }[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'GuardrailPolicyError';
  }
}

/**
 * Validates a policy (missing fields take the defaults).
 *
 * @example parseGuardrailPolicy({ financialLimits: { dailyHardCapNanos: 100e9 } }) // $100/day hard cap
 * @throws GuardrailPolicyError listing each invalid field
 */
export function parseGuardrailPolicy(input: unknown): GuardrailPolicy {
  const result = guardrailPolicySchema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  throw new GuardrailPolicyError(
    `invalid guardrail policy: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`,
    issues,
    { cause: result.error },
  );
}
