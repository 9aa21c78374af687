/**
 * Budget leases over HTTP (design decision 12, docs/admission.md): `POST /v1/budget/lease` takes or renews
 * a holder's slice of the organization's remaining budget, `POST /v1/budget/lease/release` returns it; and
 * the `admission` panel `GET /v1/budget` adds. Both lease routes take a `Service-API-Key`.
 * @module
 */
import { z } from 'zod';
import { enforcementStateSchema, type EnforcementState } from '../enforcement-state';
import { expected, PLAIN_TEXT, WELL_FORMED } from '../common';
import { timestamp, usd } from './common';

/** Names that mean something to JavaScript objects: refused as holder ids whatever map holds them. */
const RESERVED_IDS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Most a single lease report or reservation may name, USD. A report is also clamped server-side to what
 * the holder was granted (docs/admission.md); this bound keeps absurd figures out of the arithmetic.
 */
export const MAX_LEASE_REPORT_USD = 100_000;

const holderId = z
  .string({ error: expected('a holder id') })
  .min(1, { error: 'must not be empty' })
  .max(128, { error: 'must be at most 128 characters' })
  .regex(/^[A-Za-z0-9._:-]+$/, { error: 'letters, digits and . _ : - only' })
  .refine((id) => !RESERVED_IDS.has(id), { error: 'is a reserved name' })
  .meta({ description: 'The holder: one per SDK process (e.g. sdk-<uuid>).', example: 'sdk-5f0c3e0e' });

const amount = (description: string, example: number) =>
  z
    .number({ error: expected('an amount in US dollars') })
    .min(0, { error: 'must not be negative' })
    .max(MAX_LEASE_REPORT_USD, { error: `must be at most ${MAX_LEASE_REPORT_USD}` })
    .meta({ description, example });

/** Body of POST /v1/budget/lease. */
export const budgetLeaseRequestSchema = z
  .strictObject({
    holderId,
    consumedUsd: amount('What the holder spent since its previous lease call.', 0.0123).default(0),
    spendRateUsdPerMin: amount('The holder’s recent spend rate (sizes the slice).', 0.5).default(0),
    reservedUsd: amount(
      'Optional: worst cases of calls still in flight at the holder. The new slice keeps covering them ' +
        '(grantedUsd includes them); without it, calls in flight when a lease is renewed are not covered.',
      0.006,
    ).default(0),
    needUsd: amount(
      'Optional: worst cases of calls waiting at the holder for this answer. Granted on top of the ' +
        'reservations, or the answer is exhausted (nothing new granted).',
      0.02,
    ).default(0),
  })
  .meta({ description: 'Body of POST /v1/budget/lease: take or renew a lease, reporting spend.' });
export type BudgetLeaseRequest = z.infer<typeof budgetLeaseRequestSchema>;

/** Body of POST /v1/budget/lease/release. */
export const budgetLeaseReleaseRequestSchema = z
  .strictObject({
    holderId,
    consumedUsd: amount('What the holder spent since its previous lease call.', 0.004).default(0),
  })
  .meta({ description: 'Body of POST /v1/budget/lease/release: final report; the unused slice returns.' });
export type BudgetLeaseReleaseRequest = z.infer<typeof budgetLeaseReleaseRequestSchema>;

/** Body of POST /v1/budget/settled/correct (an admin's audited correction of settled spend). */
export const settledCorrectionRequestSchema = z
  .strictObject({
    deltaUsd: z
      .number({ error: expected('a signed amount in US dollars') })
      .min(-1_000_000, { error: 'must be at least -1000000' })
      .max(1_000_000, { error: 'must be at most 1000000' })
      // Smaller than a nano-dollar rounds to nothing: a correction that changes nothing is not one.
      .refine((n) => Math.abs(n) >= 1e-9, { error: 'must be at least one nano-dollar (1e-9) either way' })
      .meta({
        description: 'Added to the settled spend of the current day and month (negative: removed).',
        example: -5000,
      }),
    reason: z
      .string({ error: expected('a reason') })
      .min(3, { error: 'must be at least 3 characters' })
      .max(500, { error: 'must be at most 500 characters' })
      // Shown in the audit log and the dashboard: no line breaks or terminal escapes forged into it.
      .regex(PLAIN_TEXT, { error: 'must not contain control characters or bidirectional controls' })
      .regex(WELL_FORMED, { error: 'must not contain a lone surrogate (invalid UTF-16)' })
      .meta({ description: 'Why (kept in the audit record).', example: 'forged lease report' }),
  })
  .meta({ description: 'Body of POST /v1/budget/settled/correct.' });

/** The lease answer carries the same enforcement block as every ingest answer (CONTRACTS.md §1). */
export const leaseEnforcementSchema = enforcementStateSchema;
export type LeaseEnforcement = EnforcementState;

/** Response of POST /v1/budget/lease (CONTRACTS.md §2). */
export const budgetLeaseResponseSchema = z
  .strictObject({
    holderId,
    capped: z.boolean().meta({ description: 'False: no block cap applies; admit everything, only report.' }),
    exhausted: z.boolean().meta({
      description: 'True: nothing more fits; refuse calls until retryAfterSeconds or a later lease.',
    }),
    grantedUsd: usd('The whole slice now held (a renewal replaces the previous one).', 0.05),
    expiresAt: timestamp('When the slice lapses unless renewed (never after the period ends).'),
    ttlSeconds: z.int().min(0).meta({ description: 'Seconds until expiresAt.', example: 30 }),
    retryable: z
      .boolean()
      .optional()
      .meta({
        description:
          'When exhausted: true if the room is only held by other slices or calls in flight (ask again after ' +
          'retryAfterSeconds); false if settled spend leaves no room before the period ends.',
        example: false,
      }),
    retryAfterSeconds: z.int().min(1).nullable().meta({
      description:
        'When exhausted: seconds to the end of the capped period, or (retryable) until room can come back; else null.',
      example: null,
    }),
    allowDeferredBilling: z.literal(true).optional().meta({
      description:
        'Present under a hard cap when the organization allows batch, fine-tuning and background calls (its budget setting): bound them like other calls instead of refusing them.',
    }),
    enforcement: leaseEnforcementSchema,
  })
  .meta({ description: 'A budget lease.' });
export type BudgetLeaseResponse = z.infer<typeof budgetLeaseResponseSchema>;

export const budgetLeaseReleaseResponseSchema = z
  .strictObject({
    released: z.literal(true).meta({ description: 'The slice is back in the budget.', example: true }),
  })
  .meta({ description: 'Response of POST /v1/budget/lease/release.' });

/** Response of POST /v1/budget/settled/correct. */
export const settledCorrectionResponseSchema = z
  .strictObject({
    id: z.string().meta({ description: 'The audit record of the correction.', example: '6f1c…' }),
    at: timestamp('When it was made.'),
    deltaUsd: z.number().meta({ description: 'The correction as asked.', example: -5000 }),
    appliedUsd: z.number().meta({
      description:
        'The correction as applied: less than asked when the figure would have gone below zero (it never does).',
      example: -5000,
    }),
    settledUsd: z.strictObject({
      before: z.strictObject({ day: z.number(), month: z.number() }),
      after: z.strictObject({ day: z.number(), month: z.number() }),
    }),
  })
  .meta({ description: 'An audited correction of settled spend.' });

const admissionPeriodSchema = z
  .strictObject({
    capUsd: usd('The hard (block) cap of the period;', 0.3)
      .nullable()
      .meta({ description: 'The hard (block) cap of the period; null when none.' }),
    settledUsd: usd('Spend reported by the holders (relay containers, SDK processes).', 0.21),
    reservedUsd: usd('Worst cases of calls in flight, as last reported by their holders.', 0.012),
    outstandingReservations: z.int().min(0).meta({ description: 'Calls in flight.', example: 2 }),
    leasedUsd: usd('Slices held by live holders (they include the reservations).', 0.03),
    holders: z.int().min(0).meta({ description: 'Holders with a live slice.', example: 1 }),
  })
  .meta({ description: 'Admission state of one period; admitted = settled + reserved.' });

export const admissionPanelSchema = z
  .strictObject({ day: admissionPeriodSchema, month: admissionPeriodSchema })
  .meta({ description: 'Budget admission (docs/admission.md): the current UTC day and month.' });
export type AdmissionPanel = z.infer<typeof admissionPanelSchema>;
