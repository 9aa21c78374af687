/**
 * `GET /v1/budget` and `PUT /v1/budget`: the budget (spec 1.4, with soft caps), the editable layer
 * sections of the guardrail policy, spend so far, what remains, a status and the active flag.
 * @module
 */
import { z } from 'zod';
import {
  contextGrowthPolicySchema,
  financialLimitsPolicySchema,
  identicalLoopPolicySchema,
  premiumConcentrationPolicySchema,
  rpsBurstPolicySchema,
} from '../../guardrails';
import { LAYER_IDS } from '../../guardrails/layers';
import { budgetActionSchema, budgetConfigSchema } from '../budget';
import { admissionPanelSchema } from './budget-lease';
import { timestamp, usd } from './common';
import { flagViewSchema } from './flags';
import { enforcementStateSchema } from '../enforcement-state';

const layerId = z.enum(LAYER_IDS).meta({ description: 'A guardrail layer.', example: 'rpsBurst' });

/**
 * Body of PUT /v1/budget. `budget` replaces the budget record (spec 1.4, extended with soft caps);
 * `policy.layers` is merged into the stored policy, section by section, keyed by layer id (layer 1's
 * caps come from `budget`); the merged policy is then validated as a whole.
 */
export const putBudgetRequestSchema = z
  .strictObject({
    budget: budgetConfigSchema.optional(),
    policy: z
      .strictObject({
        layers: z
          .partialRecord(layerId, z.record(z.string(), z.unknown()))
          .optional()
          .meta({
            description: 'Fields to change per layer section, e.g. { rpsBurst: { maxRequests: 20 } }.',
            example: { rpsBurst: { maxRequests: 20 }, identicalLoop: { consecutive: 5 } },
          }),
        limits: z
          .record(z.string(), z.unknown())
          .optional()
          .meta({
            description:
              'Fields to change in the state bounds shared by the layers (maxKeys, maxSessions, maxClockSkewMs): fewer keys tracked leave room for a longer burst ring, e.g. { maxKeys: 16 } with rpsBurst.maxRequests 100.',
            example: { maxKeys: 16 },
          }),
      })
      .optional(),
  })
  .meta({ description: 'Body of PUT /v1/budget: the budget, the guardrail policy, or both.' });
export type PutBudgetRequest = z.infer<typeof putBudgetRequestSchema>;

const limitOrNull = (description: string, example: number) =>
  z
    .number()
    .min(0)
    .nullable()
    .meta({ description: `${description} null when not set.`, example });

export const budgetStatusSchema = z
  .strictObject({
    budget: z
      .strictObject({
        dailyLimitUsd: limitOrNull('Hard cap per UTC day;', 50),
        monthlyLimitUsd: limitOrNull('Hard cap per UTC month;', 1000),
        dailySoftLimitUsd: limitOrNull('Soft cap per UTC day (a warning);', 40),
        monthlySoftLimitUsd: limitOrNull('Soft cap per UTC month (a warning);', 800),
        action: budgetActionSchema,
        allowDeferredBilling: z
          .boolean()
          .meta({ description: 'Batch, fine-tuning and background calls allowed under a hard cap.' })
          .optional(),
      })
      .meta({ description: 'The budget; block when none was configured.' }),
    policy: z
      .strictObject({
        layers: z
          .strictObject({
            financialLimits: z
              .strictObject(
                financialLimitsPolicySchema.omit({
                  dailySoftCapNanos: true,
                  dailyHardCapNanos: true,
                  monthlySoftCapNanos: true,
                  monthlyHardCapNanos: true,
                }).shape,
              )
              .meta({ description: 'Layer 1: its switch and modes (the caps are the budget).' }),
            identicalLoop: z.strictObject(identicalLoopPolicySchema.shape).meta({ description: 'Layer 2.' }),
            contextGrowth: z.strictObject(contextGrowthPolicySchema.shape).meta({ description: 'Layer 3.' }),
            rpsBurst: z.strictObject(rpsBurstPolicySchema.shape).meta({ description: 'Layer 4.' }),
            premiumConcentration: z
              .strictObject(premiumConcentrationPolicySchema.shape)
              .meta({ description: 'Layer 5.' }),
          })
          .meta({ description: 'The effective section of each layer (defaults filled in).' }),
        layerInfo: z
          .array(
            z.strictObject({
              id: layerId,
              ordinal: z.int().min(1).meta({ description: "The spec's layer number.", example: 4 }),
              name: z.string().meta({ description: 'Display name.', example: 'Request burst' }),
              description: z.string().meta({
                description: 'What the layer watches.',
                example: 'More than 10 requests per key per sliding minute.',
              }),
            }),
          )
          .meta({ description: 'The layers in evaluation order.' }),
      })
      .meta({ description: 'The guardrail policy as the dashboard edits it.' }),
    spend: z
      .strictObject({
        todayUsd: usd('Spend of the current UTC day.', 3.25),
        monthUsd: usd('Spend of the current UTC month.', 48.9),
      })
      .meta({ description: 'Spend so far.' }),
    remaining: z
      .strictObject({
        dailyUsd: usd('Left under the daily hard cap (never negative);', 46.75)
          .nullable()
          .meta({ description: 'Left under the daily hard cap (never negative); null without a cap.' }),
        monthlyUsd: usd('Left under the monthly hard cap;', 951.1)
          .nullable()
          .meta({ description: 'Left under the monthly hard cap (never negative); null without a cap.' }),
      })
      .meta({ description: 'What remains under the hard caps.' }),
    status: z.enum(['ok', 'soft_cap', 'over_budget', 'throttled', 'suspended']).meta({
      description:
        'suspended / throttled: an organization-scope flag is active; over_budget: a hard cap is reached; soft_cap: a soft cap is reached; else ok.',
      example: 'suspended',
    }),
    flag: flagViewSchema.nullable().meta({
      description:
        'The strongest active flag that stops every call of the caller (organization scope; for an API key also its key scope), or null; session flags: GET /v1/flags.',
    }),
    updatedAt: timestamp('When the budget or policy was last changed; null if never.').nullable(),
    admission: admissionPanelSchema,
  })
  .meta({ description: 'Response of GET and PUT /v1/budget.' });
export type BudgetStatus = z.infer<typeof budgetStatusSchema>;

/**
 * GET /v1/budget for an API key without the `read` scope (an `ingest`-only key): only whether it may
 * call, never spend, caps or thresholds (issue 21).
 */
export const budgetEnforcementOnlySchema = z
  .strictObject({ enforcement: enforcementStateSchema })
  .meta({ description: 'Response of GET /v1/budget to an API key without the read scope.' });
export type BudgetEnforcementOnly = z.infer<typeof budgetEnforcementOnlySchema>;

/** Every answer of GET /v1/budget: the status (people, `read` keys) or the enforcement block alone. */
export const budgetResponseSchema = z
  .union([budgetStatusSchema, budgetEnforcementOnlySchema])
  .meta({ description: 'Response of GET /v1/budget.' });
