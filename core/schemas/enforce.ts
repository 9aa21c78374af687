/**
 * `POST /api/guardrails/enforce` (spec 4.2): pushes or clears an organization's kill flag.
 *
 * The request is a union on `action`: a push (`SUSPENDED`, `THROTTLED`) requires `triggerType`,
 * `observedValue`, `thresholdValue` and `mode`; a clear (`ACTIVE`) takes none of them and ignores
 * them if sent. `apiKey` is a whole key or its prefix `abn_<publicId>` (the dashboard holds only
 * prefixes; ownership is proven by the caller's ID token). The TTL is never taken from the caller.
 * @module
 */
import { z } from 'zod';
import { API_KEY_PATTERN, API_KEY_PREFIX_PATTERN } from '../keys/api-key';
import { expected } from './common';

const apiKeyOrPrefix = z
  .string({ error: expected('an API key or key prefix') })
  .max(128, { error: 'must be at most 128 characters' })
  .refine((s) => API_KEY_PATTERN.test(s) || API_KEY_PREFIX_PATTERN.test(s), {
    error: 'expected an API key abn_<publicId>_<secret> or its prefix abn_<publicId>',
  })
  .meta({ description: 'The organization API key, or its prefix abn_<publicId>; the caller must own it.' });

/** The layer or trigger that tripped, snake_case (token_loop_identical, budget_daily_hard, rps_burst, …). */
export const triggerTypeSchema = z
  .string({ error: expected('a trigger type such as token_loop_identical') })
  .regex(/^[a-z][a-z0-9_]{0,63}$/, {
    error: 'expected a snake_case trigger type such as token_loop_identical',
  })
  .meta({ description: 'The layer or trigger that tripped.', example: 'token_loop_identical' });

/** How a tripped guardrail is enforced. */
export const enforcementModeSchema = z
  .enum(['hard_stop', 'throttle', 'alert'], { error: expected('hard_stop, throttle or alert') })
  .meta({ description: 'hard_stop: reject calls; throttle: slow them; alert: notify only.' });
export type EnforcementMode = z.infer<typeof enforcementModeSchema>;

const measured = (description: string) =>
  z.number({ error: expected('a finite number') }).meta({ description, example: 4 });

export const enforcePushRequestSchema = z
  .object({
    apiKey: apiKeyOrPrefix,
    action: z
      .enum(['SUSPENDED', 'THROTTLED'], { error: expected('SUSPENDED, THROTTLED or ACTIVE') })
      .meta({ description: 'Flag to push (TTL 2 h / 30 min).' }),
    triggerType: triggerTypeSchema,
    observedValue: measured('Value observed.'),
    thresholdValue: measured('Threshold crossed.'),
    mode: enforcementModeSchema,
  })
  .meta({ description: 'Push a kill flag.' });
export type EnforcePushRequest = z.infer<typeof enforcePushRequestSchema>;

export const enforceClearRequestSchema = z
  .object({
    apiKey: apiKeyOrPrefix,
    action: z.literal('ACTIVE').meta({ description: 'Clear the flag (manual resume).' }),
  })
  .meta({ description: 'Clear a kill flag; other members are ignored.' });
export type EnforceClearRequest = z.infer<typeof enforceClearRequestSchema>;

export const enforceRequestSchema = z
  .discriminatedUnion('action', [enforcePushRequestSchema, enforceClearRequestSchema])
  .meta({ description: 'Body of POST /api/guardrails/enforce.' });
export type EnforceRequest = z.infer<typeof enforceRequestSchema>;

export const enforceClearResponseSchema = z
  .strictObject({ success: z.literal(true), action: z.literal('RESUMED') })
  .meta({ description: 'Response to a clear (spec 4.2).' });
export type EnforceClearResponse = z.infer<typeof enforceClearResponseSchema>;

export const enforcePushResponseSchema = z
  .strictObject({
    success: z.literal(true),
    action: z.enum(['SUSPENDED', 'THROTTLED']),
    flagKey: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({ description: 'The opaque flag key (HMAC of the key prefix), when disclosed.' })
      .optional(),
    expiresAt: z.iso.datetime({ offset: true }).meta({ description: 'When the flag lapses (ISO 8601).' }),
    ttlSeconds: z
      .int()
      .min(1)
      .meta({ description: 'Flag lifetime: 7200 for SUSPENDED, 1800 for THROTTLED.' }),
    triggerType: triggerTypeSchema,
    mode: enforcementModeSchema,
    keysFlagged: z
      .int()
      .min(0)
      .meta({ description: "How many of the organization's keys carry the flag." })
      .optional(),
  })
  .meta({ description: 'Response to a push.' });
export type EnforcePushResponse = z.infer<typeof enforcePushResponseSchema>;

export const enforceResponseSchema = z.union([enforcePushResponseSchema, enforceClearResponseSchema]);
export type EnforceResponse = z.infer<typeof enforceResponseSchema>;
