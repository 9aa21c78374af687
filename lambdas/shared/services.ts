import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { ApiKeyAuthenticator } from './api-key-auth';
import { BudgetLeases } from './budget-leases';
import { type EventSink, KinesisEventSink } from './event-sink';
import type { Notifier } from './notifier';
import type { SecretSource } from './secrets';
import { type AdminCredentialStore, MemoryAdminCredentialStore } from './stores/admin-credential-store';
import { type AuditLog, DynamoAuditLog } from './stores/audit-log';
import {
  type BedrockReconciliationStore,
  DynamoBedrockReconciliationStore,
} from './stores/bedrock-reconciliation-store';
import { type AggregateStore, DynamoAggregateStore } from './stores/aggregate-store';
import { type ApiKeyStore, DynamoApiKeyStore } from './stores/api-key-store';
import { DynamoBudgetLeaseStore, type LeaseHolderRegistry } from './stores/budget-lease-store';
import { KeyedTokenBuckets } from '../../core/rate-limit/token-bucket';
import { DenialAuditLimiter } from './denial-audit-limiter';

/**
 * Lease route calls per key: an SDK process renews about every 2 s and reports at each invocation's end,
 * so 20 at once and 10 a second leave room for a few dozen processes per key while a flood is cut off.
 */
export const LEASE_ROUTE_RATE = Object.freeze({ burst: 20, perSecond: 10 });
import { DynamoEventDedupeStore, type EventDedupeStore } from './stores/event-dedupe-store';
import { DynamoFlagStore, type FlagStore } from './stores/flag-store';
import { DynamoForecastStore, type ForecastStore } from './stores/forecast-store';
import { DynamoGuardrailStateStore, type GuardrailStateStore } from './stores/guardrail-state-store';
import { DynamoLedgerStore, type LedgerStore } from './stores/ledger-store';
import { DynamoOrgConfigStore, type OrgConfigStore } from './stores/org-config-store';
import { DynamoLoopRunStore, type LoopRunStore } from './stores/loop-run-store';
import { DynamoResumeStore, type ResumeStore } from './stores/resume-store';
import { DynamoOrgStore, type OrgStore } from './stores/org-store';
import { DynamoOrgOwnerStore, type OrgOwnerStore } from './stores/org-owner-store';
import { DynamoReconciliationStore, type ReconciliationStore } from './stores/reconciliation-store';
import { DynamoPricingRatesStore, type PricingRatesStore } from './stores/pricing-rates-store';
import { DynamoTripLog, type TripLog } from './stores/trip-log';

/** Verifies a person's ID token (Cognito in AWS, the local issuer locally) and returns its claims. */
export interface IdTokenVerifier {
  verify(token: string): Promise<Record<string, unknown>>;
}

/** Everything a handler may use, behind the small interfaces of the stores: the same in AWS and locally. */
export interface Services {
  orgs: OrgStore;
  /** Each organization's owner (its first person), who is `admin` without a group (core/roles). */
  owners: OrgOwnerStore;
  /** The append-only audit log of every change (issue 21). */
  audit: AuditLog;
  keys: ApiKeyStore;
  flags: FlagStore;
  ledger: LedgerStore;
  aggregates: AggregateStore;
  /** Claims on event ids, so a retried event counts once in the ledger, aggregates and guardrails. */
  dedupe: EventDedupeStore;
  config: OrgConfigStore;
  pricingRates: PricingRatesStore;
  guardrailState: GuardrailStateStore;
  forecasts: ForecastStore;
  trips: TripLog;
  reconciliations: ReconciliationStore;
  /** Admin credentials for reconciliation (Secrets Manager in AWS, the secrets file locally). */
  adminCredentials: AdminCredentialStore;
  /** Bedrock reconciliation settings and the one-organization-per-account claims. */
  bedrockReconciliation: BedrockReconciliationStore;
  /** The AWS account this deployment runs in (whose Bedrock metrics the reconciliation reads). */
  awsAccountId: string;
  sink: EventSink;
  notifier: Notifier;
  pepper: SecretSource;
  apiKeys: ApiKeyAuthenticator;
  /** Budget leases (docs/admission.md): the relay's holder and the lease routes share them. */
  budgetLeases: BudgetLeases;
  /** SDK lease holders: each bound to the key that took it; holders per key and organization bounded. */
  leaseHolders: LeaseHolderRegistry;
  /** Per-key rate limit of the lease routes (in each API container). */
  leaseRouteLimiter: KeyedTokenBuckets;
  /** How many refused attempts per person the audit log records (in each API container). */
  denialAudit: DenialAuditLimiter;
  /** The identical-call runs the relay's containers share (layer 2 in line). */
  loopRuns: LoopRunStore;
  /** When people last resumed (cleared flags): the burst and premium windows start again there. */
  resumes: ResumeStore;
  now: () => number;
}

export interface ServiceWiring {
  doc: DynamoDBDocumentClient;
  kinesis: KinesisClient;
  dataTable: string;
  flagsTable: string;
  streamName: string;
  pepper: SecretSource;
  notifier: Notifier;
  /** @default an in-process store (tests) */
  adminCredentials?: AdminCredentialStore;
  /** @default LOCAL_AWS_ACCOUNT_ID */
  awsAccountId?: string;
  now?: () => number;
}

/** The account id the local stack and tests stand for (no AWS account). */
export const LOCAL_AWS_ACCOUNT_ID = '000000000000';

export function createServices(w: ServiceWiring): Services {
  const data = { doc: w.doc, tableName: w.dataTable };
  const keys = new DynamoApiKeyStore(data);
  const now = w.now ?? Date.now;
  const config = new DynamoOrgConfigStore(data);
  const aggregates = new DynamoAggregateStore(data);
  const leaseStore = new DynamoBudgetLeaseStore(data);
  return {
    orgs: new DynamoOrgStore(data),
    owners: new DynamoOrgOwnerStore(data),
    audit: new DynamoAuditLog(data),
    keys,
    flags: new DynamoFlagStore({ doc: w.doc, tableName: w.flagsTable }),
    ledger: new DynamoLedgerStore(data),
    loopRuns: new DynamoLoopRunStore(data),
    resumes: new DynamoResumeStore(data),
    aggregates,
    dedupe: new DynamoEventDedupeStore(data),
    config,
    pricingRates: new DynamoPricingRatesStore(data),
    guardrailState: new DynamoGuardrailStateStore(data),
    forecasts: new DynamoForecastStore(data),
    trips: new DynamoTripLog(data),
    reconciliations: new DynamoReconciliationStore(data),
    adminCredentials: w.adminCredentials ?? new MemoryAdminCredentialStore(),
    bedrockReconciliation: new DynamoBedrockReconciliationStore(data),
    awsAccountId: w.awsAccountId ?? LOCAL_AWS_ACCOUNT_ID,
    sink: new KinesisEventSink({ client: w.kinesis, streamName: w.streamName }),
    notifier: w.notifier,
    pepper: w.pepper,
    apiKeys: new ApiKeyAuthenticator({ keys, pepper: () => w.pepper.get(), now }),
    budgetLeases: new BudgetLeases({ store: leaseStore, config, aggregates, now }),
    leaseHolders: leaseStore,
    leaseRouteLimiter: new KeyedTokenBuckets(LEASE_ROUTE_RATE),
    denialAudit: new DenialAuditLimiter(),
    now,
  };
}
