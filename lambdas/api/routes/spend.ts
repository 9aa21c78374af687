import { aggregateSk, periodsOf } from '../../../core/ledger/aggregate-deltas';
import { nanosToUsd } from '../../../core/pricing';
import type { AggregateRow } from '../../shared/stores/aggregate-store';
import { json } from '../../shared/http';
import type { Route } from './types';

const HOUR_MS = 3600_000;

function dimensionRows(rows: AggregateRow[], periodSk: string, dim: 'MODEL' | 'PROVIDER') {
  const prefix = `${periodSk}#${dim}#`;
  return rows
    .filter((r) => r.sk.startsWith(prefix))
    .map((r) => ({ value: r.sk.slice(prefix.length), costUsd: nanosToUsd(r.costNanos), calls: r.calls }))
    .sort((a, b) => b.costUsd - a.costUsd);
}

/** GET /v1/spend: what the overview draws — totals, spend by model and provider, hourly and per-minute series. */
export const getSpend: Route = {
  auth: 'any',
  handle: async ({ principal, services }) => {
    const now = services.now();
    const p = periodsOf(now);
    const orgId = principal.orgId;
    const daySk = aggregateSk.day(p.day);
    const monthSk = aggregateSk.month(p.month);
    const [day, month, hours, minutes] = await Promise.all([
      services.aggregates.list(orgId, daySk),
      services.aggregates.list(orgId, monthSk),
      services.aggregates.range(
        orgId,
        aggregateSk.hour(periodsOf(now - 47 * HOUR_MS).hour),
        aggregateSk.hour(p.hour),
      ),
      services.aggregates.range(
        orgId,
        aggregateSk.minute(periodsOf(now - 59 * 60_000).minute),
        aggregateSk.minute(p.minute),
      ),
    ]);
    return json(200, {
      todayUsd: nanosToUsd(day.find((r) => r.sk === daySk)?.costNanos ?? 0),
      monthUsd: nanosToUsd(month.find((r) => r.sk === monthSk)?.costNanos ?? 0),
      byModel: dimensionRows(month, monthSk, 'MODEL').map(({ value, ...r }) => {
        const slash = value.indexOf('/');
        return { provider: value.slice(0, slash), model: value.slice(slash + 1), ...r };
      }),
      byProvider: dimensionRows(month, monthSk, 'PROVIDER').map(({ value, ...r }) => ({
        provider: value,
        ...r,
      })),
      hourly: hours.map((r) => ({
        hour: r.sk.slice('HOUR#'.length),
        costUsd: nanosToUsd(r.costNanos),
        calls: r.calls,
      })),
      minutes: minutes.map((r) => ({
        minute: r.sk.slice('MINUTE#'.length),
        costUsd: nanosToUsd(r.costNanos),
        calls: r.calls,
      })),
    });
  },
};
