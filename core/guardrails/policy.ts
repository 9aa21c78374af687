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

/** The sections of a policy: each layer's, and the state bounds they share. */
const SECTION_SCHEMAS = {
  financialLimits: financialLimitsPolicySchema,
  identicalLoop: identicalLoopPolicySchema,
  contextGrowth: contextGrowthPolicySchema,
  rpsBurst: rpsBurstPolicySchema,
  premiumConcentration: premiumConcentrationPolicySchema,
  limits: stateLimitsPolicySchema,
} as const;

const policySectionsSchema = z.object({
  financialLimits: SECTION_SCHEMAS.financialLimits.prefault({}),
  identicalLoop: SECTION_SCHEMAS.identicalLoop.prefault({}),
  contextGrowth: SECTION_SCHEMAS.contextGrowth.prefault({}),
  rpsBurst: SECTION_SCHEMAS.rpsBurst.prefault({}),
  premiumConcentration: SECTION_SCHEMAS.premiumConcentration.prefault({}),
  limits: SECTION_SCHEMAS.limits.prefault({}),
});

/**
 * Whether `field` is a field of the policy section `section` (a layer id, or `limits`). The sections
 * parse leniently, so that a policy stored by another version still reads; an update naming any other
 * field is refused instead (a misspelt `maxRequest` would otherwise be kept and do nothing).
 */
export function isPolicyField(section: string, field: string): boolean {
  const schema: z.ZodObject | undefined = (SECTION_SCHEMAS as Record<string, z.ZodObject>)[section];
  return schema !== undefined && Object.hasOwn(schema.shape, field);
}

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
