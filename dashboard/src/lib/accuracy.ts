/** Agreement over time for the Accuracy page, from the reconciliation's per-day, per-model rows. */
import type { ProviderReconciliation } from '../api/reconciliation';

/**
 * The agreement of one provider per UTC day, as the API measures it over the window:
 * Σ min(ledger, provider) / Σ max(ledger, provider) over that day's models, in percent. A row with
 * neither untracked nor overcounted spend counts as matched (its difference is the reports' rounding).
 * Days with no spend on either side have no point.
 */
export function dailyAgreement(p: ProviderReconciliation): Array<{ date: string; pct: number }> {
  const byDay = new Map<string, { matched: number; larger: number }>();
  for (const d of p.days) {
    const acc = byDay.get(d.date) ?? { matched: 0, larger: 0 };
    const larger = Math.max(d.ledgerUsd, d.providerUsd);
    const exact = d.untrackedUsd === 0 && d.overcountedUsd === 0;
    acc.matched += exact ? larger : Math.min(d.ledgerUsd, d.providerUsd);
    acc.larger += larger;
    byDay.set(d.date, acc);
  }
  return [...byDay.entries()]
    .filter(([, v]) => v.larger > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([date, v]) => ({ date, pct: Math.round((v.matched / v.larger) * 10_000) / 100 }));
}

/** One chart row per date, one column per provider (recharts' shape). */
export function agreementSeries(providers: ProviderReconciliation[]): Array<Record<string, number | string>> {
  const rows = new Map<string, Record<string, number | string>>();
  for (const p of providers) {
    for (const { date, pct } of dailyAgreement(p)) {
      const row = rows.get(date) ?? { date };
      row[p.provider] = pct;
      rows.set(date, row);
    }
  }
  return [...rows.values()].sort((a, b) => String(a.date).localeCompare(String(b.date)));
}
