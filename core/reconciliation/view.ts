/** The API's view of a reconciliation: the exact nano-USD results in dollars (money converts at the edge). */
import { nanosToUsd } from '../pricing/money';
import type { ProviderReconciliation } from './reconcile';

/** A reconciliation run as stored: exact results, the window compared, and what could not be fetched. */
export interface ReconciliationRecord {
  computedAt: string;
  window: { from: string; to: string };
  providers: ProviderReconciliation[];
  /** Providers whose reports could not be read this run (message never holds a credential). */
  errors: Array<{ provider: string; message: string }>;
}

export function reconciliationView(record: ReconciliationRecord) {
  return {
    providers: record.providers.map((p) => ({
      provider: p.provider,
      source: p.source ?? 'provider_report',
      ledgerUsd: nanosToUsd(p.ledgerNanos),
      providerUsd: nanosToUsd(p.providerNanos),
      untrackedUsd: nanosToUsd(p.untrackedNanos),
      overcountedUsd: nanosToUsd(p.overcountedNanos),
      agreementPct: p.agreementPct,
      tokenAgreementPct: p.tokenAgreementPct,
      days: p.cells.map((c) => ({
        date: c.date,
        ...(c.model === null ? {} : { model: c.model }),
        ledgerUsd: nanosToUsd(c.ledgerNanos),
        providerUsd: nanosToUsd(c.providerNanos),
        untrackedUsd: nanosToUsd(c.untrackedNanos),
        overcountedUsd: nanosToUsd(c.overcountedNanos),
        ledgerTokens: c.ledgerTokens,
        providerTokens: c.providerTokens,
      })),
    })),
    computedAt: record.computedAt,
    window: record.window,
    errors: record.errors,
  };
}
export type ReconciliationView = ReturnType<typeof reconciliationView>;
