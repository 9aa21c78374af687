/**
 * The audit log (issue 21, design decision 16): every change an organization's people and keys make,
 * with who, when, what, and the value before and after (never a secret). Append-only.
 * @module
 */
import { z } from 'zod';
import { ROLES } from '../../roles/roles';
import { timestamp } from './common';

/** Most entries of one page of GET /v1/audit. */
export const MAX_AUDIT_PAGE = 100;

/** Audit retention an organization may set, in days (an entry keeps the retention of its write). */
export const AUDIT_RETENTION_DAYS = { min: 90, max: 3650, default: 400 } as const;

/** What changed: `<thing>.<verb>`. */
export const AUDIT_ACTIONS = [
  'budget.updated',
  'pricing_rates.updated',
  'credentials.stored',
  'credentials.deleted',
  'key.created',
  'key.revoked',
  'flag.set',
  'flag.cleared',
  'settled_spend.corrected',
  'audit_settings.updated',
  'owner.claimed',
  'role.denied',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const auditActionSchema = z
  .enum(AUDIT_ACTIONS)
  .meta({ description: 'What changed (role.denied: a refused attempt).', example: 'budget.updated' });

/** Who made a change: a person (ID token) or a program (API key, by its public id). */
export const auditActorSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('person'),
      sub: z.string().meta({ description: 'The Cognito user id (`sub`).', example: '4f1c…' }),
      email: z
        .string()
        .nullable()
        .meta({ description: 'The email of the ID token.', example: 'ana@acme.io' }),
      role: z.enum(ROLES).meta({ description: 'The role the person acted with.', example: 'admin' }),
    }),
    z.strictObject({
      kind: z.literal('key'),
      keyId: z.string().meta({ description: 'Public id of the API key.', example: 'k7Qx2mP9' }),
    }),
  ])
  .meta({ description: 'Who made the change.' });
export type AuditActor = z.infer<typeof auditActorSchema>;

export const auditEntrySchema = z
  .strictObject({
    id: z.string().meta({ description: 'Unique id of the entry.', example: 'a3f9c2e1b7d04c55' }),
    at: timestamp('When the change was made.'),
    action: auditActionSchema,
    actor: auditActorSchema,
    target: z.string().nullable().meta({
      description:
        'What the change applies to: a key id, a provider, a flag scope, the refused route; null for the organization.',
      example: 'openai',
    }),
    before: z.unknown().meta({ description: 'The value before the change (never a secret); null if none.' }),
    after: z.unknown().meta({ description: 'The value after the change (never a secret); null if none.' }),
  })
  .meta({ description: 'One audit log entry.' });
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** Query of GET /v1/audit. */
export const auditQuerySchema = z
  .strictObject({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_AUDIT_PAGE)
      .default(50)
      .meta({ description: `Entries per page, 1 to ${MAX_AUDIT_PAGE}.`, example: 50 }),
    cursor: z
      .string()
      .max(512)
      .meta({ description: 'nextCursor of the previous page.', example: 'eyJzayI6IjIwMjYifQ' })
      .optional(),
    action: auditActionSchema.optional(),
  })
  .meta({ description: 'Query of GET /v1/audit.' });
export type AuditQuery = z.infer<typeof auditQuerySchema>;

export const auditPageSchema = z
  .strictObject({
    entries: z.array(auditEntrySchema).max(MAX_AUDIT_PAGE).meta({ description: 'Newest first.' }),
    nextCursor: z.string().nullable().meta({
      description: 'Pass as `cursor` for the next (older) page; null on the last page.',
      example: 'eyJzayI6IjIwMjYifQ',
    }),
    retentionDays: z.int().meta({ description: 'Days a new entry is kept.', example: 400 }),
  })
  .meta({ description: 'Response of GET /v1/audit.' });
export type AuditPage = z.infer<typeof auditPageSchema>;

/** Body of PUT /v1/audit/settings. */
export const putAuditSettingsRequestSchema = z
  .strictObject({
    retentionDays: z
      .int()
      .min(AUDIT_RETENTION_DAYS.min)
      .max(AUDIT_RETENTION_DAYS.max)
      .meta({
        description: `Days each new entry is kept (${AUDIT_RETENTION_DAYS.min}–${AUDIT_RETENTION_DAYS.max}); entries already written keep theirs.`,
        example: 400,
      }),
  })
  .meta({ description: 'Body of PUT /v1/audit/settings.' });

export const auditSettingsResponseSchema = z
  .strictObject({ retentionDays: z.int().meta({ description: 'Days a new entry is kept.', example: 400 }) })
  .meta({ description: 'Response of PUT /v1/audit/settings.' });
