/**
 * `POST /api/guardrails/enforce` (spec 4.2): pushes or clears a kill flag.
 *
 * The request is a union on `action`: a push (`SUSPENDED`, `THROTTLED`) requires `triggerType`,
 * `observedValue`, `thresholdValue` and `mode`; a clear (`ACTIVE`) takes none of them and ignores
 * them if sent. Any other member is refused (400 naming it): a misspelt `keyID` or `scope` silently
 * ignored would widen a kill or a resume to the whole organization. `apiKey` is a whole key or its prefix `abn_<publicId>` (the dashboard holds only
 * prefixes; ownership is proven by the caller's ID token). The TTL is never taken from the caller.
 *
 * Scopes (design decision 13): `scope` is `organization` (the default: every key), `key` (the key named by
 * `keyId`, else by `apiKey`) or `session` (that key's `sessionId`). A clear with a `scope` clears exactly
 * that scope; a clear without one clears every flag of the organization, as spec 4.2 did. `keyId` may
 * stand in for `apiKey` (the dashboard's Sessions view names keys by public id). At organization scope
 * (named or by default) neither is needed: the organization is the caller's.
 * @module
 */
import { z } from 'zod';
import { API_KEY_PATTERN, API_KEY_PREFIX_PATTERN } from '../keys/api-key';
import { keyPublicIdSchema } from './api/keys';
import { expected, label } from './common';

const apiKeyOrPrefix = z
  .string({ error: expected('an API key or key prefix') })
  .max(128, { error: 'must be at most 128 characters' })
  .refine((s) => API_KEY_PATTERN.test(s) || API_KEY_PREFIX_PATTERN.test(s), {
    error: 'expected an API key abn_<publicId>_<secret> or its prefix abn_<publicId>',
  })
  .meta({ description: 'The organization API key, or its prefix abn_<publicId>; the caller must own it.' });

/** What a flag stops. */
export const flagScopeSchema = z
  .enum(['organization', 'key', 'session'], { error: expected('organization, key or session') })
  .meta({
    description:
      'What the flag stops: every key of the organization, one key, or one agent session of a key.',
    example: 'session',
  });

/** The members that name a flag's target; shared by pushes and clears. */
const targetFields = {
  apiKey: apiKeyOrPrefix.optional(),
  scope: flagScopeSchema.optional(),
  keyId: keyPublicIdSchema.optional(),
  sessionId: label(
    'The agent session (SDK sessionId, proxy header x-spendguard-session); required for scope session.',
    'agent-7',
  ).optional(),
};

/** Target rules the object shapes cannot say: a key to own, and a session for session scope. */
function checkTarget(
  req: {
    apiKey?: string | undefined;
    keyId?: string | undefined;
    scope?: string | undefined;
    sessionId?: string | undefined;
  },
  ctx: z.core.$RefinementCtx,
): void {
  // An organization-scope flag (the default scope) names no key: the caller's ID token says which
  // organization. A key or session scope needs the key.
  if (
    req.apiKey === undefined &&
    req.keyId === undefined &&
    (req.scope === 'key' || req.scope === 'session')
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['apiKey'],
      message: 'required (an API key or key prefix abn_<publicId>, or keyId)',
    });
  }
  if (req.scope === 'session' && req.sessionId === undefined) {
    ctx.addIssue({ code: 'custom', path: ['sessionId'], message: 'required for scope session' });
  }
}

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
  .strictObject({
    ...targetFields,
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

/** A push member sent with a clear: spec 4.2 sends it on pushes only, so a clear accepts and ignores it. */
const ignoredOnClear = (member: string) =>
  z
    .unknown()
    .optional()
    .meta({ description: `Ignored on a clear (${member} describes a push).` });

export const enforceClearRequestSchema = z
  .strictObject({
    ...targetFields,
    action: z.literal('ACTIVE').meta({ description: 'Clear the flag (manual resume).' }),
    triggerType: ignoredOnClear('triggerType'),
    observedValue: ignoredOnClear('observedValue'),
    thresholdValue: ignoredOnClear('thresholdValue'),
    mode: ignoredOnClear('mode'),
  })
  .meta({
    description:
      'Clear kill flags: exactly the given scope, or every flag of the organization without one; push members are ignored, any other member is refused.',
  });
export type EnforceClearRequest = z.infer<typeof enforceClearRequestSchema>;

export const enforceRequestSchema = z
  .discriminatedUnion('action', [enforcePushRequestSchema, enforceClearRequestSchema])
  .superRefine(checkTarget)
  .meta({ description: 'Body of POST /api/guardrails/enforce.' });
export type EnforceRequest = z.infer<typeof enforceRequestSchema>;

/** The target of a push, or of a clear that named a scope. */
const targetResponseFields = {
  scope: flagScopeSchema,
  keyId: keyPublicIdSchema.nullable().meta({ description: 'The key (key and session scope), else null.' }),
  sessionId: z.string().nullable().meta({ description: 'The session (session scope), else null.' }),
};

export const enforceClearResponseSchema = z
  .strictObject({
    success: z.literal(true),
    action: z.literal('RESUMED'),
    scope: targetResponseFields.scope.optional(),
    keyId: targetResponseFields.keyId.optional(),
    sessionId: targetResponseFields.sessionId.optional(),
    cleared: z.int().min(0).optional().meta({
      description:
        'Flags the clear removed at that scope. 0 when none stood there: a session clear does not lift a key or organization flag.',
    }),
  })
  .meta({ description: 'Response to a clear (spec 4.2).' });
export type EnforceClearResponse = z.infer<typeof enforceClearResponseSchema>;

export const enforcePushResponseSchema = z
  .strictObject({
    success: z.literal(true),
    action: z.enum(['SUSPENDED', 'THROTTLED']),
    ...targetResponseFields,
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
      .meta({
        description:
          'How many flag items were written: one per key for organization scope, else 0 or 1 (0 when a stronger flag is already in place: no downgrade).',
      })
      .optional(),
  })
  .meta({ description: 'Response to a push.' });
export type EnforcePushResponse = z.infer<typeof enforcePushResponseSchema>;

export const enforceResponseSchema = z.union([enforcePushResponseSchema, enforceClearResponseSchema]);
export type EnforceResponse = z.infer<typeof enforceResponseSchema>;
