/**
 * The `enforcement` block of ingest and lease answers (CONTRACTS.md §1): the kill flags that apply to
 * the calling key, so a client stops a tripped agent within one flush interval.
 * @module
 */
import { z } from 'zod';
import { flagScopeSchema, triggerTypeSchema } from './enforce';

export const enforcementFlagSchema = z
  .strictObject({
    scope: flagScopeSchema,
    state: z.enum(['SUSPENDED', 'THROTTLED']).meta({
      description: 'SUSPENDED: refuse the calls it covers; THROTTLED: slow them.',
      example: 'SUSPENDED',
    }),
    sessionId: z
      .string()
      .nullable()
      .meta({ description: 'The agent session it stops (session scope), else null.', example: 'agent-7' }),
    triggerType: triggerTypeSchema,
    expiresAt: z.iso.datetime({ offset: true }).meta({ description: 'When the flag lapses (ISO 8601).' }),
    retryAfterSeconds: z.int().min(1).meta({ description: 'Whole seconds until it lapses.', example: 7100 }),
  })
  .meta({ description: 'A kill flag that applies to the calling key.' });
export type EnforcementFlag = z.infer<typeof enforcementFlagSchema>;

export const enforcementStateSchema = z
  .strictObject({
    blocked: z.boolean().meta({
      description:
        'True when an organization- or key-scope SUSPENDED flag applies: every call of the key is refused.',
    }),
    flags: z.array(enforcementFlagSchema).meta({
      description:
        "Unexpired flags of the organization, of this key and of this key's sessions; strongest first.",
    }),
  })
  .meta({ description: 'What the calling key may do now.' });
export type EnforcementState = z.infer<typeof enforcementStateSchema>;
