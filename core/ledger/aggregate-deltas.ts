/**
 * Spend aggregates of a set of priced calls, summed per item key before anything is written, so that a
 * Kinesis record costs one update per aggregate item however many events it carries.
 * Periods are UTC: day `2026-11-22`, month `2026-11`, hour `2026-11-22T13`, minute `2026-11-22T13:05`.
 */
import { saturatingAdd } from './saturating-sum';

export interface PricedCall {
  ts: number;
  provider: string;
  model: string;
  projectId: string | null;
  featureId: string | null;
  inputTokens: number;
  outputTokens: number;
  costNanos: number;
  /** A budget lease already counted this cost (see TelemetryEvent.leased). @default false */
  leased?: boolean;
}

export interface AggregateDelta {
  sk: string;
  costNanos: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /**
   * The part of costNanos no budget lease counted (telemetry, SDKs without leases, calls while no cap
   * applied): admission adds it to what holders reported (core/leases planLease, issue 18.2).
   */
  unleasedCostNanos: number;
  /** Minute buckets are kept two days (the "spend per minute" view); others forever. */
  expiresAt?: number;
}

/** Sort keys of the aggregate items (one place, for writers and readers). */
export const aggregateSk = {
  day: (day: string) => `DAY#${day}`,
  month: (month: string) => `MONTH#${month}`,
  hour: (hour: string) => `HOUR#${hour}`,
  minute: (minute: string) => `MINUTE#${minute}`,
  dimension: (periodSk: string, dim: 'MODEL' | 'PROVIDER' | 'PROJECT' | 'FEATURE', value: string) =>
    `${periodSk}#${dim}#${value}`,
} as const;

const MINUTE_BUCKET_TTL_SECONDS = 2 * 24 * 3600;

export function periodsOf(ts: number): { day: string; month: string; hour: string; minute: string } {
  const iso = new Date(ts).toISOString();
  return { day: iso.slice(0, 10), month: iso.slice(0, 7), hour: iso.slice(0, 13), minute: iso.slice(0, 16) };
}

export function aggregateDeltas(calls: readonly PricedCall[]): AggregateDelta[] {
  const byKey = new Map<string, AggregateDelta>();
  const add = (sk: string, c: PricedCall, expiresAt?: number) => {
    let d = byKey.get(sk);
    if (!d) {
      d = {
        sk,
        costNanos: 0,
        calls: 0,
        inputTokens: 0,
        outputTokens: 0,
        unleasedCostNanos: 0,
        ...(expiresAt ? { expiresAt } : {}),
      };
      byKey.set(sk, d);
    }
    d.costNanos = saturatingAdd(d.costNanos, c.costNanos);
    d.calls += 1;
    d.inputTokens = saturatingAdd(d.inputTokens, c.inputTokens);
    d.outputTokens = saturatingAdd(d.outputTokens, c.outputTokens);
    if (c.leased !== true) d.unleasedCostNanos = saturatingAdd(d.unleasedCostNanos, c.costNanos);
  };
  for (const c of calls) {
    const p = periodsOf(c.ts);
    const day = aggregateSk.day(p.day);
    const month = aggregateSk.month(p.month);
    const dim = aggregateSk.dimension;
    add(day, c);
    add(month, c);
    add(aggregateSk.hour(p.hour), c);
    add(aggregateSk.minute(p.minute), c, Math.floor(c.ts / 1000) + MINUTE_BUCKET_TTL_SECONDS);
    const model = `${c.provider}/${c.model}`;
    add(dim(day, 'MODEL', model), c);
    add(dim(month, 'MODEL', model), c);
    add(dim(day, 'PROVIDER', c.provider), c);
    add(dim(month, 'PROVIDER', c.provider), c);
    if (c.projectId) add(dim(month, 'PROJECT', c.projectId), c);
    if (c.featureId) add(dim(month, 'FEATURE', c.featureId), c);
  }
  return [...byKey.values()];
}
