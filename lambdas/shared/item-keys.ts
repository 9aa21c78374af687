/**
 * The item key layout of the Data table, in one place. Every query names the organization in its
 * partition key, so one organization can never read another's items (tenant isolation by construction).
 * See docs/data-model.md.
 */

/** Kinesis sequence numbers are decimal strings of varying length; pad so string order = numeric order. */
export function padSeq(seq: string): string {
  return seq.padStart(64, '0');
}

export const itemKeys = {
  /** API key lookup by public id (the part of the key the caller presents). */
  apiKey: (publicId: string) => ({ pk: `KEY#${publicId}`, sk: 'KEY' }),
  /** GSI1 partition listing an organization's keys. */
  orgKeysIndex: (orgId: string) => `ORG#${orgId}#KEYS`,
  /** Organization profile. */
  org: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'PROFILE' }),
  /** Budget caps and guardrail policy. */
  config: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'CONFIG' }),
  /** The organization's own pricing rates (org rates, self-hosted endpoint families). */
  pricingRates: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'PRICING_RATES' }),
  /** Guardrail engine state (one item, sequence-guarded). */
  guardrailState: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'GUARDRAILS' }),
  /**
   * Budget counter of the organization scope: committed and settled spend per period and slices per expiry
   * bucket, changed only by conditional `ADD` (docs/admission.md). No holder is listed in it.
   * A partition of its own, kind first: the relay's only write grant is `dynamodb:LeadingKeys` =
   * `BUDGET#ORG#*` (lib/edge.ts), which no other partition matches whatever an organization id contains
   * (`ORG#*#BUDGET` would also match the config partition of an organization named `x#BUDGET`).
   */
  budgetCounter: (orgId: string) => ({ pk: `BUDGET#ORG#${orgId}`, sk: 'COUNTER' }),
  /**
   * Where the budget counter was before it had a partition of its own (in the organization's partition,
   * beside config, rates and profile). Read once per container and organization while the new item does
   * not exist yet, to carry the day's and month's figures over (budget-lease-store.ts).
   */
  legacyBudgetCounter: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'BUDGET#COUNTER' }),
  /**
   * The identical-call run of one key and model that the relay's containers share (lambdas/relay
   * loop-check.ts). A partition kind of its own, like the budget counter's, so the relay's write grant
   * (`LOOPRUN#ORG#*`) matches nothing else. `run` is the run's hash (key and model).
   */
  loopRun: (orgId: string, keyId: string, run: string) => ({
    pk: `LOOPRUN#ORG#${orgId}`,
    sk: `${keyId}#${run}`,
  }),
  /**
   * When a person last cleared the organization's flags (a Resume), for the whole organization and per
   * key: the guardrail consumer's burst and premium windows start again there (core/guardrails/resume.ts).
   * A partition kind of its own, so the enforce function's write grant (`RESUME#ORG#*`) reaches nothing else.
   */
  resumes: (orgId: string) => ({ pk: `RESUME#ORG#${orgId}`, sk: 'RESUMES' }),
  /** One SDK lease holder: the key it is bound to and the slice the counter holds for it. */
  leaseHolder: (orgId: string, holderId: string) => ({ pk: `ORG#${orgId}#LEASEHOLDER`, sk: holderId }),
  /** Lease holders registered per key in one UTC hour (bounds holders per key and per organization). */
  leaseHolderCount: (orgId: string, window: string) => ({ pk: `ORG#${orgId}`, sk: `LEASEHOLDERS#${window}` }),
  /** Latest forecast. */
  forecast: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'FORECAST' }),
  /** Latest reconciliation against the providers' own reports. */
  reconciliation: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'RECONCILIATION' }),
  /** The organization's Bedrock reconciliation setting (regions; the AWS account it claims). */
  bedrockReconciliation: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'RECONCILIATION#BEDROCK' }),
  /**
   * Which organization owns an AWS account's Bedrock figures: at most one, so that two organizations
   * never both count the account's whole spend as their own.
   */
  bedrockAccountClaim: (account: string) => ({ pk: `BEDROCK_ACCOUNT#${account}`, sk: 'CLAIM' }),
  /** Ledger partition; sort key `<ISO ts>#<eventId>` keeps time order for range queries. */
  ledgerPk: (orgId: string) => `ORG#${orgId}#LEDGER`,
  ledgerSk: (isoTs: string, eventId: string) => `${isoTs}#${eventId}`,
  /** Aggregates partition; sort keys from aggregateSk. */
  aggregatePk: (orgId: string) => `ORG#${orgId}#AGG`,
  /**
   * A consumer's claim on an event id sent with one API key (dedupe of retried events; see
   * event-dedupe-store.ts). Keyed by the sending key too, so one key cannot suppress another's ids.
   */
  eventClaim: (orgId: string, keyId: string, eventId: string, consumer: string) => ({
    pk: `ORG#${orgId}#KEY#${keyId}#EVENT#${eventId}`,
    sk: `CLAIM#${consumer}`,
  }),
  /** Guardrail trips history partition; sort key `<ISO ts>#<layer>`. */
  tripsPk: (orgId: string) => `ORG#${orgId}#TRIPS`,
  /**
   * The organization's owner: its first person, written once (docs/security.md, "Roles"). A partition of
   * its own, so the enforce function's write grant can name it (lib/api.ts).
   */
  owner: (orgId: string) => ({ pk: `ORG#${orgId}#OWNER`, sk: 'OWNER' }),
  /** Audit log settings (retention) of the organization. */
  auditSettings: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'AUDIT_SETTINGS' }),
  /** Audit log partition, append-only; sort key `<ISO ts>#<entry id>` (newest last). */
  auditPk: (orgId: string) => `ORG#${orgId}#AUDIT`,
} as const;
