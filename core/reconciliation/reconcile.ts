/**
 * The comparison itself: the ledger against each provider's own report, per UTC day and model.
 *
 * Per cell (day, model): `untracked` = what the provider billed beyond the ledger (calls Spendguard
 * never saw), `overcounted` = what the ledger holds beyond the bill. A difference within the rounding
 * tolerance (the reports round: OpenAI to float dollars, Anthropic to decimal cents) is agreement.
 * Agreement = Σ min(ledger, provider) / Σ max(ledger, provider) over the cells, in percent: 100 when
 * every cell matches, lower by every untracked or overcounted dollar, whichever side is larger.
 */
import { reconciliationModelKey } from './model-key';
import type { ProviderRow } from './provider-rows';

/** The ledger's spend of one day, provider and model (from the daily per-model aggregates). */
export interface LedgerRow {
  date: string;
  provider: string;
  model: string;
  costNanos: number;
  tokens: number;
}

/**
 * Where a provider's figure comes from: its own usage and cost reports (what it billed), or, for
 * Amazon Bedrock, its CloudWatch token metrics priced at the list or organization rates (not an invoice).
 */
export type ProviderFigureSource = 'provider_report' | 'token_metrics_at_rates';

/** One provider's report over the window. */
export interface ProviderReport {
  provider: string;
  /** @default 'provider_report' */
  source?: ProviderFigureSource;
  rows: readonly ProviderRow[];
  /** The UTC days the report is complete for; ledger days outside them are not compared (pending). */
  coveredDays: readonly string[];
}

export interface ReconciledCell {
  date: string;
  model: string | null;
  ledgerNanos: number;
  providerNanos: number;
  untrackedNanos: number;
  overcountedNanos: number;
  ledgerTokens: number;
  providerTokens: number;
}

export interface ProviderReconciliation {
  provider: string;
  /** Absent on records stored before Bedrock: those are all `provider_report`. */
  source?: ProviderFigureSource;
  ledgerNanos: number;
  providerNanos: number;
  untrackedNanos: number;
  overcountedNanos: number;
  /** Money agreement in percent (2 decimals); null when neither side has spend. */
  agreementPct: number | null;
  /** Token agreement in percent (2 decimals); null when neither side has tokens. */
  tokenAgreementPct: number | null;
  cells: ReconciledCell[];
}

/** Default rounding tolerance per cell: $0.00001 (OpenAI reports float dollars, Anthropic decimal cents). */
export const DEFAULT_TOLERANCE_NANOS = 10_000;

/** min/max ratio in percent, 2 decimals; null for 0/0. */
export function agreementPercent(matched: number, total: number): number | null {
  if (total <= 0) return null;
  return Math.round((matched / total) * 10_000) / 100;
}

/**
 * Reconciles the ledger with each provider's report.
 *
 * @param ledger every ledger row of the window (any provider; rows of providers without a report are ignored)
 * @param toleranceNanos per-cell difference treated as rounding, not as untracked or overcounted spend
 */
export function reconcile(
  ledger: readonly LedgerRow[],
  reports: readonly ProviderReport[],
  toleranceNanos: number = DEFAULT_TOLERANCE_NANOS,
): ProviderReconciliation[] {
  return reports.map((report) => {
    const covered = new Set(report.coveredDays);
    const cells = new Map<string, ReconciledCell>();
    const cell = (date: string, model: string | null): ReconciledCell => {
      const key = `${date}\u0000${model ?? ''}`;
      let c = cells.get(key);
      if (!c) {
        c = {
          date,
          model,
          ledgerNanos: 0,
          providerNanos: 0,
          untrackedNanos: 0,
          overcountedNanos: 0,
          ledgerTokens: 0,
          providerTokens: 0,
        };
        cells.set(key, c);
      }
      return c;
    };
    for (const row of ledger) {
      if (row.provider !== report.provider || !covered.has(row.date)) continue;
      const c = cell(row.date, reconciliationModelKey(row.model));
      c.ledgerNanos += row.costNanos;
      c.ledgerTokens += row.tokens;
    }
    for (const row of report.rows) {
      if (!covered.has(row.date)) continue;
      const c = cell(row.date, row.model);
      c.providerNanos += row.costNanos;
      c.providerTokens += row.tokens;
    }
    const sorted = [...cells.values()].sort(
      (a, b) => a.date.localeCompare(b.date) || (a.model ?? '').localeCompare(b.model ?? ''),
    );
    let ledgerNanos = 0;
    let providerNanos = 0;
    let untrackedNanos = 0;
    let overcountedNanos = 0;
    let matched = 0;
    let larger = 0;
    let tokensMatched = 0;
    let tokensLarger = 0;
    for (const c of sorted) {
      const diff = c.providerNanos - c.ledgerNanos;
      if (Math.abs(diff) > toleranceNanos) {
        c.untrackedNanos = Math.max(0, diff);
        c.overcountedNanos = Math.max(0, -diff);
        matched += Math.min(c.ledgerNanos, c.providerNanos);
      } else {
        matched += Math.max(c.ledgerNanos, c.providerNanos);
      }
      larger += Math.max(c.ledgerNanos, c.providerNanos);
      ledgerNanos += c.ledgerNanos;
      providerNanos += c.providerNanos;
      untrackedNanos += c.untrackedNanos;
      overcountedNanos += c.overcountedNanos;
      tokensMatched += Math.min(c.ledgerTokens, c.providerTokens);
      tokensLarger += Math.max(c.ledgerTokens, c.providerTokens);
    }
    return {
      provider: report.provider,
      source: report.source ?? 'provider_report',
      ledgerNanos,
      providerNanos,
      untrackedNanos,
      overcountedNanos,
      agreementPct: agreementPercent(matched, larger),
      tokenAgreementPct: agreementPercent(tokensMatched, tokensLarger),
      cells: sorted,
    };
  });
}

/** The UTC days of the window ending with `today`, oldest first. */
export function windowDays(today: string, days: number): string[] {
  const end = Date.parse(`${today}T00:00:00.000Z`);
  return Array.from({ length: days }, (_, i) =>
    new Date(end - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}
