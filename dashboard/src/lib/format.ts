/** Display formatting: money, counts, times, durations and labels derived from field names. */

const grouped2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/**
 * Dollars with a precision that suits the amount: `$1,234.56`, `$0.0123`, `$0.000123` (three
 * significant digits below a cent, down to one nano-dollar).
 */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (value === 0) return '$0.00';
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  if (abs >= 0.995) return `${sign}$${grouped2.format(abs)}`;
  if (abs >= 0.01) return `${sign}$${trimZeros(abs.toFixed(4), 2)}`;
  if (abs < 1e-9) return `${sign}<$0.000000001`;
  const decimals = Math.min(9, Math.ceil(-Math.log10(abs)) + 2);
  return `${sign}$${trimZeros(abs.toFixed(decimals), 2)}`;
}

/** Short axis labels: `$0`, `$0.004`, `$12`, `$1.2k`, `$3.4M`. */
export function formatUsdShort(value: number): string {
  if (!Number.isFinite(value)) return '';
  const abs = Math.abs(value);
  const sign = value < 0 ? '-' : '';
  if (abs === 0) return '$0';
  if (abs >= 1e6) return `${sign}$${trimZeros((abs / 1e6).toFixed(1), 0)}M`;
  if (abs >= 1e3) return `${sign}$${trimZeros((abs / 1e3).toFixed(1), 0)}k`;
  if (abs >= 10) return `${sign}$${Math.round(abs)}`;
  if (abs >= 0.1) return `${sign}$${trimZeros(abs.toFixed(2), 0)}`;
  if (abs >= 0.001) return `${sign}$${trimZeros(abs.toFixed(3), 0)}`;
  return `${sign}$${Number(abs.toPrecision(2))}`;
}

function trimZeros(fixed: string, minDecimals: number): string {
  const [whole, frac = ''] = fixed.split('.');
  let f = frac.replace(/0+$/, '');
  while (f.length < minDecimals) f += '0';
  return f ? `${whole}.${f}` : (whole ?? '');
}

export function formatInt(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : integer.format(value);
}

export function formatPercent(share: number): string {
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** `2026-11-22 13:04:05` in the viewer's time zone; the raw string when it is not a date. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(
    d.getMinutes(),
  )}:${pad(d.getSeconds())}`;
}

/** `1h 05m 09s`, `4m 03s`, `12s`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${pad(m)}m ${pad(s)}s`;
  if (m > 0) return `${m}m ${pad(s)}s`;
  return `${s}s`;
}

/** `dailySoftCapNanos` → `Daily soft cap`, `resetAfterIdleMs` → `Reset after idle`, `rps_burst` → `Rps burst`. */
export function humanize(key: string): string {
  const words = key
    .replace(/(Nanos|Usd|Ms)$/, '')
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([a-zA-Z])(\d)/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const TRIGGER_LABELS: Readonly<Record<string, string>> = {
  budget_daily_soft: 'Daily soft cap reached',
  budget_daily_hard: 'Daily hard cap reached',
  budget_monthly_soft: 'Monthly soft cap reached',
  budget_monthly_hard: 'Monthly hard cap reached',
  token_loop_identical: 'Identical-prompt loop',
  context_growth_linear: 'Linearly growing context',
  rps_burst: 'Request burst',
  premium_concentration: 'Premium model concentration',
};

export function triggerLabel(triggerType: string): string {
  return TRIGGER_LABELS[triggerType] ?? humanize(triggerType);
}

/** Observed and threshold values in the trigger's unit: USD for budgets, a share for concentration, else a count. */
export function formatTriggerValue(triggerType: string, value: number): string {
  if (triggerType.startsWith('budget_')) return formatUsd(value);
  if (triggerType === 'premium_concentration' && value >= 0 && value <= 1) return formatPercent(value);
  return Number.isInteger(value) ? formatInt(value) : String(Number(value.toPrecision(4)));
}

const MODE_LABELS: Readonly<Record<string, string>> = {
  hard_stop: 'Hard stop (suspend)',
  throttle: 'Throttle',
  alert: 'Alert only',
};

export function modeLabel(mode: string): string {
  return MODE_LABELS[mode] ?? humanize(mode);
}

/** The ledger's estimate marker: `~est` for an estimate priced by fallback economics, `est` for one priced exactly. */
export function estimateMarker(entry: { estimated: boolean; costSource: string }): '' | 'est' | '~est' {
  if (!entry.estimated) return '';
  return entry.costSource === 'FALLBACK_ECONOMICS' ? '~est' : 'est';
}

export function costSourceLabel(costSource: string): string {
  if (costSource === 'PROVIDER_REGISTRY') return 'registry';
  if (costSource === 'FALLBACK_ECONOMICS') return 'fallback';
  // What the provider said it charged (OpenRouter usage.cost), and the organization's own rate.
  if (costSource === 'PROVIDER_REPORTED') return 'provider-reported';
  if (costSource === 'ORG_RATE') return 'own rate';
  return costSource.toLowerCase();
}

export function sourceLabel(source: string): string {
  return source === 'sdk' ? 'SDK' : source.charAt(0).toUpperCase() + source.slice(1);
}
