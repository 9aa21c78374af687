import type { Logger } from '@aws-lambda-powertools/logger';
import { aggregateSk } from '../../core/ledger/aggregate-deltas';
import { nanosToUsd, usdToNanos } from '../../core/pricing/money';
import {
  DEFAULT_TOLERANCE_NANOS,
  reconcile,
  windowDays,
  type LedgerRow,
  type ProviderReport,
  type ReconciledProvider,
  type ReconciliationRecord,
} from '../../core/reconciliation';
import type { PriceRegistry } from '../../core/pricing';
import type { BedrockProfileLookup } from '../shared/bedrock-profile-lookup';
import { deploymentRegion } from '../shared/deployment-region';
import type { Services } from '../shared/services';
import { type BedrockMetricsReader, cloudWatchBedrockMetrics } from './bedrock-metrics-reader';
import { bedrockReport } from './bedrock-report';
import { DEFAULT_PROVIDER_BASE_URLS, PROVIDER_REPORTS, type ProviderBaseUrls } from './provider-reports';
import type { FetchFn } from './report-request';

/** Settings of the reconciliation job (docs/reconciliation.md). */
export interface ReconciliationSettings {
  /** UTC days compared, today included. @default 7 */
  windowDays?: number;
  /**
   * Untracked spend of one provider over the window at or above which the organization is notified
   * (like a soft cap). @default 1 (USD)
   */
  untrackedAlertUsd?: number;
  /** Per-cell difference treated as the reports' rounding. @default DEFAULT_TOLERANCE_NANOS ($0.00001) */
  toleranceNanos?: number;
  /** Buckets per report page (small values force paging; tests). @default 31 */
  pageLimit?: number;
}

export interface ReconciliationRunnerDeps extends ReconciliationSettings {
  services: Services;
  logger?: Logger;
  /** @default globalThis.fetch */
  fetch?: FetchFn;
  /** @default the providers' public API hosts */
  baseUrls?: Partial<ProviderBaseUrls>;
  /** Bedrock's CloudWatch token metrics. @default CloudWatch with the function's own role */
  bedrockMetrics?: BedrockMetricsReader;
  /** The region read when an organization's Bedrock setting names none. @default AWS_REGION */
  deploymentRegion?: string;
  /** Application profiles the organization has not mapped (GetInferenceProfile). @default none */
  bedrockProfiles?: BedrockProfileLookup;
  /** Prices Bedrock's token metrics. @default the bundled price data */
  registry?: () => Promise<PriceRegistry>;
}

export const DEFAULT_WINDOW_DAYS = 7;
export const DEFAULT_UNTRACKED_ALERT_USD = 1;

/** The ledger's per-day, per-model aggregates of the window (`DAY#<day>#MODEL#<provider>/<model>`). */
async function ledgerRows(services: Services, orgId: string, days: readonly string[]): Promise<LedgerRow[]> {
  const first = days[0] ?? '';
  const last = days[days.length - 1] ?? '';
  const rows = await services.aggregates.range(orgId, aggregateSk.day(first), `${aggregateSk.day(last)}~`);
  const out: LedgerRow[] = [];
  for (const r of rows) {
    const m = /^DAY#(\d{4}-\d{2}-\d{2})#MODEL#([^/]+)\/(.+)$/.exec(r.sk);
    if (!m) continue;
    out.push({
      date: m[1] as string,
      provider: m[2] as string,
      model: m[3] as string,
      costNanos: r.costNanos,
      tokens: r.inputTokens + r.outputTokens,
    });
  }
  return out;
}

/**
 * The reconciliation job: for each organization, each provider it stored an admin credential for, read
 * the provider's own usage and cost reports (and Amazon Bedrock's CloudWatch token metrics when the
 * organization claims the account's figures), compare them with the ledger per day and model, store the
 * result, and notify when untracked spend crosses the threshold. One provider's failure is recorded in
 * the result and does not stop the others.
 */
export function createReconciliationRunner(deps: ReconciliationRunnerDeps) {
  const { services } = deps;
  const fetchFn = deps.fetch ?? fetch;
  const baseUrls: ProviderBaseUrls = { ...DEFAULT_PROVIDER_BASE_URLS, ...deps.baseUrls };
  const windowLength = deps.windowDays ?? DEFAULT_WINDOW_DAYS;
  const alertNanos = usdToNanos(deps.untrackedAlertUsd ?? DEFAULT_UNTRACKED_ALERT_USD);
  let bedrockMetrics = deps.bedrockMetrics;
  const defaultRegion = deps.deploymentRegion ?? deploymentRegion();

  /**
   * Bedrock's report, when the organization claimed the account's figures. The claim is checked again
   * here: an organization whose claim was lost (or never held) must not count the account's spend.
   */
  const bedrockReportOf = async (
    orgId: string,
    days: readonly string[],
  ): Promise<ProviderReport | undefined> => {
    const setting = await services.bedrockReconciliation.get(orgId);
    if (setting === undefined) return undefined;
    if ((await services.bedrockReconciliation.ownerOf(setting.account)) !== orgId) {
      throw new Error(
        `bedrock: this organization does not hold the account's claim (claimed by another organization, or lost); store the bedrock setting again`,
      );
    }
    bedrockMetrics ??= cloudWatchBedrockMetrics();
    return bedrockReport({
      orgId,
      reader: bedrockMetrics,
      regions: setting.regions.length > 0 ? setting.regions : [defaultRegion],
      days,
      registry: deps.registry ? await deps.registry() : undefined,
      pricingRates: services.pricingRates,
      profiles: deps.bedrockProfiles,
    });
  };

  const runOrganization = async (orgId: string): Promise<ReconciliationRecord> => {
    const now = services.now();
    const days = windowDays(new Date(now).toISOString().slice(0, 10), windowLength);
    const providers = await services.adminCredentials.configured(orgId);
    const reports: ProviderReport[] = [];
    const errors: ReconciliationRecord['errors'] = [];
    const bedrock = bedrockReportOf(orgId, days).then(
      (report) => {
        if (report) reports.push(report);
      },
      (err: unknown) => {
        // CloudWatch errors name the region and operation only (bedrock-metrics-reader.ts).
        const message = err instanceof Error ? err.message : 'bedrock metrics failed';
        errors.push({ provider: 'bedrock', message });
        deps.logger?.warn('bedrock metrics failed', { orgId, message });
      },
    );
    await Promise.all([
      bedrock,
      ...providers.map(async (provider: ReconciledProvider) => {
        try {
          const adminKey = await services.adminCredentials.get(orgId, provider);
          if (!adminKey) return;
          reports.push(
            await PROVIDER_REPORTS[provider]({
              baseUrl: baseUrls[provider],
              adminKey,
              fetch: fetchFn,
              days,
              pageLimit: deps.pageLimit,
            }),
          );
        } catch (err) {
          // The message names provider, path and status only (report-request.ts); never the key.
          const message = err instanceof Error ? err.message : 'report failed';
          errors.push({ provider, message });
          deps.logger?.warn('provider report failed', { orgId, provider, message });
        }
      }),
    ]);
    reports.sort((a, b) => a.provider.localeCompare(b.provider));
    errors.sort((a, b) => a.provider.localeCompare(b.provider));
    const record: ReconciliationRecord = {
      computedAt: new Date(now).toISOString(),
      window: { from: days[0] ?? '', to: days[days.length - 1] ?? '' },
      providers: reconcile(await ledgerRows(services, orgId, days), reports, deps.toleranceNanos),
      errors,
    };
    const previous = await services.reconciliations.get(orgId);
    await services.reconciliations.put(orgId, record);
    await notifyUntracked(orgId, previous, record);
    return record;
  };

  /** Once per provider and day: when untracked spend first reaches the threshold. */
  const notifyUntracked = async (
    orgId: string,
    previous: ReconciliationRecord | undefined,
    record: ReconciliationRecord,
  ): Promise<void> => {
    const today = record.computedAt.slice(0, 10);
    for (const p of record.providers) {
      if (p.untrackedNanos < alertNanos) continue;
      const before =
        previous?.computedAt.slice(0, 10) === today
          ? previous.providers.find((q) => q.provider === p.provider)
          : undefined;
      if (before !== undefined && before.untrackedNanos >= alertNanos) continue;
      try {
        await services.notifier.notify({
          orgId,
          kind: 'untracked_spend',
          triggerType: 'untracked_spend',
          observedValue: nanosToUsd(p.untrackedNanos),
          thresholdValue: nanosToUsd(alertNanos),
          message: `${p.provider} billed $${nanosToUsd(p.untrackedNanos).toFixed(2)} that Spendguard never saw (${record.window.from} to ${record.window.to}): an uninstrumented caller?`,
          at: record.computedAt,
        });
      } catch (err) {
        deps.logger?.warn('untracked-spend notification failed', { orgId, error: err as Error });
      }
    }
  };

  return {
    runOrganization,
    /** Every organization; one organization's failure does not hold back the others. */
    runAll: async (): Promise<void> => {
      for (const orgId of await services.orgs.list()) {
        try {
          await runOrganization(orgId);
        } catch (err) {
          deps.logger?.warn('reconciliation failed', { orgId, error: err as Error });
        }
      }
    },
  };
}
export type ReconciliationRunner = ReturnType<typeof createReconciliationRunner>;

export { DEFAULT_TOLERANCE_NANOS };
