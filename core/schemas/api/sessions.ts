/**
 * `GET /v1/sessions`: the organization's agent sessions over the last hours, from the ledger (calls,
 * cost, prompt growth, repeated fingerprints), the trip log and the kill flags (CONTRACTS §4).
 * @module
 */
import { z } from 'zod';
import { enforcementModeSchema, triggerTypeSchema } from '../enforce';
import { count, timestamp, usd } from './common';
import { tripSchema } from './flags';

/** Longest look-back of GET /v1/sessions: a week. */
export const MAX_SESSION_HOURS = 168;

/** Query of GET /v1/sessions. */
export const sessionsQuerySchema = z
  .strictObject({
    hours: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_SESSION_HOURS)
      .default(24)
      .meta({ description: `Look-back in hours, 1 to ${MAX_SESSION_HOURS}.`, example: 24 }),
  })
  .meta({ description: 'Query of GET /v1/sessions.' });
export type SessionsQuery = z.infer<typeof sessionsQuerySchema>;

/** The kill flag holding a session (a session-scope flag, CONTRACTS §1). */
export const sessionFlagSchema = z
  .strictObject({
    scope: z
      .enum(['organization', 'key', 'session'])
      .meta({ description: 'What the flag stops.', example: 'session' }),
    keyId: z.string().nullable().meta({ description: 'Public id of the key.', example: 'k3v9x0q2m7za' }),
    sessionId: z.string().nullable().meta({ description: 'The session.', example: 'agent-7' }),
    state: z.enum(['SUSPENDED', 'THROTTLED']).meta({ description: 'The flag state.', example: 'SUSPENDED' }),
    triggerType: triggerTypeSchema,
    observedValue: z.number().meta({ description: 'Value observed.', example: 4 }),
    thresholdValue: z.number().meta({ description: 'Threshold crossed.', example: 4 }),
    mode: enforcementModeSchema,
    setAt: timestamp('When the flag was set.'),
    expiresAt: timestamp('When the flag lapses.'),
  })
  .meta({ description: 'The active flag of a session.' });
export type SessionFlagView = z.infer<typeof sessionFlagSchema>;

/** One agent session. */
export const sessionViewSchema = z
  .strictObject({
    sessionId: z.string().meta({
      description: "The SDK's sessionId or the proxy's x-spendguard-session header.",
      example: 'agent-7',
    }),
    keyId: z
      .string()
      .meta({ description: 'Public id of the key that sent the calls.', example: 'k3v9x0q2m7za' }),
    calls: count('Calls of the session in the window.', 42),
    costUsd: usd('Their cost (summed exactly in nanos, dollars at the edge).', 0.126),
    firstAt: timestamp('First call in the window.'),
    lastAt: timestamp('Latest call.'),
    promptTokens: z
      .array(
        z.strictObject({
          ts: timestamp('When the call was made.'),
          tokens: count('Whole prompt of the call: input, cache read and cache writes.', 1200),
        }),
      )
      .meta({ description: 'Prompt size per call, oldest first (the latest 300 calls): context growth.' }),
    repeatedFingerprints: z
      .array(
        z.strictObject({
          fingerprint: z.string().meta({
            description: 'Request fingerprint.',
            example: 'sha256:43ad730492212e0818a579981a2fbb9a10479288b21310f069f918e0135c885c',
          }),
          count: count('How many calls sent it.', 4).min(2),
        }),
      )
      .meta({ description: 'Fingerprints sent more than once, most repeated first (at most 10): loops.' }),
    trip: tripSchema.nullable().meta({ description: 'The newest trip attributed to the session, or null.' }),
    flag: sessionFlagSchema.nullable().meta({ description: 'The active session-scope flag, or null.' }),
  })
  .meta({ description: 'One agent session.' });
export type SessionView = z.infer<typeof sessionViewSchema>;

export const sessionListResponseSchema = z
  .strictObject({
    sessions: z.array(sessionViewSchema).meta({
      description: 'Most recently active first (at most 200); calls without a session are not listed.',
    }),
    hours: count('The look-back used.', 24),
    truncated: z.boolean().meta({
      description: 'True when the window held more calls than one answer reads (the newest are summarized).',
      example: false,
    }),
  })
  .meta({ description: 'Response of GET /v1/sessions.' });
export type SessionListResponse = z.infer<typeof sessionListResponseSchema>;
