/**
 * `GET /v1/flags` (the organization's active kill flags) and `GET /v1/guardrails/trips` (recent
 * guardrail trips and soft-cap warnings).
 * @module
 */
import { z } from 'zod';
import { LAYER_IDS } from '../../guardrails/layers';
import { enforcementModeSchema, flagScopeSchema, triggerTypeSchema } from '../enforce';
import { count, timestamp } from './common';

const measured = (description: string, example: number) => z.number().meta({ description, example });

/** An active kill flag: organization flags once (every key carries a copy), key and session flags each. */
export const flagViewSchema = z
  .strictObject({
    scope: flagScopeSchema,
    keyId: z.string().nullable().meta({
      description:
        'The key it stops (key scope) or whose session it stops (session scope); null for organization scope.',
      example: 'k3v9x0q2m7za',
    }),
    sessionId: z
      .string()
      .nullable()
      .meta({ description: 'The agent session it stops (session scope), else null.', example: 'agent-7' }),
    state: z.enum(['SUSPENDED', 'THROTTLED']).meta({
      description: 'SUSPENDED: the edge rejects calls; THROTTLED: the edge slows them.',
      example: 'SUSPENDED',
    }),
    triggerType: triggerTypeSchema,
    observedValue: measured('Value observed.', 4),
    thresholdValue: measured('Threshold crossed.', 4),
    mode: enforcementModeSchema,
    setAt: timestamp('When the flag was set.'),
    expiresAt: timestamp('When the flag lapses (2 h for SUSPENDED, 30 min for THROTTLED).'),
    keysFlagged: count('How many keys carry the flag (organization scope: every key; else 1).', 2).min(1),
  })
  .meta({ description: 'An active kill flag.' });
export type FlagView = z.infer<typeof flagViewSchema>;

export const flagListResponseSchema = z
  .strictObject({
    flags: z.array(flagViewSchema).meta({
      description: 'Strongest first (SUSPENDED, then the latest expiry); empty when none is active.',
    }),
  })
  .meta({ description: 'Response of GET /v1/flags.' });
export type FlagListResponse = z.infer<typeof flagListResponseSchema>;

/** Most trips in one response. */
export const MAX_TRIPS = 200;

/** Query of GET /v1/guardrails/trips. */
export const tripsQuerySchema = z
  .strictObject({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_TRIPS)
      .default(50)
      .meta({ description: `Most trips to return, 1 to ${MAX_TRIPS}.`, example: 50 }),
  })
  .meta({ description: 'Query of GET /v1/guardrails/trips.' });
export type TripsQuery = z.infer<typeof tripsQuerySchema>;

/** One guardrail trip or soft-cap warning. */
export const tripSchema = z
  .strictObject({
    at: timestamp('When it tripped.'),
    layer: z.enum(LAYER_IDS).meta({ description: 'The guardrail layer.', example: 'identicalLoop' }),
    triggerType: triggerTypeSchema,
    observedValue: measured(
      'Value observed (USD for budgets, a count for loops and bursts, a share 0–1).',
      4,
    ),
    thresholdValue: measured('Threshold crossed, in the same unit.', 4),
    mode: enforcementModeSchema,
    action: z
      .enum(['SUSPENDED', 'THROTTLED', 'WARN'])
      .meta({ description: 'Flag pushed, or WARN for a notification only.', example: 'SUSPENDED' }),
    keyId: z
      .string()
      .nullable()
      .meta({ description: 'Public id of the key of the event that tripped it.', example: 'k3v9x0q2m7za' }),
    sessionId: z
      .string()
      .nullable()
      .meta({ description: 'Agent session of that event, when named.', example: 'sess_42' }),
    message: z.string().meta({
      description: 'One-line explanation with the numbers.',
      example: '4 identical consecutive requests in session sess_42',
    }),
  })
  .meta({ description: 'A guardrail trip or soft-cap warning.' });
export type Trip = z.infer<typeof tripSchema>;

export const tripListResponseSchema = z
  .strictObject({ trips: z.array(tripSchema).max(MAX_TRIPS).meta({ description: 'Newest first.' }) })
  .meta({ description: 'Response of GET /v1/guardrails/trips.' });
export type TripListResponse = z.infer<typeof tripListResponseSchema>;
