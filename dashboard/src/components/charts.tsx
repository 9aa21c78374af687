/** The Overview's charts (recharts). Each container carries a stable `data-testid` for end-to-end tests. */
import type { ReactElement } from 'react';
import {
  Area,
  Bar,
  BarChart,
  CartesianGrid,
  ComposedChart,
  LabelList,
  Line,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';

import type { ForecastResponse, HourlySpend, ModelSpend, ProviderSpend } from '../api/types';
import { formatUsd, formatUsdShort, humanize } from '../lib/format';
import { bucketTime, type TodayPoint } from '../lib/spend';

const COLORS = {
  spend: '#0f766e',
  spendFill: '#99f6e4',
  p50: '#1d4ed8',
  band95: '#93c5fd',
  band99: '#dbeafe',
  soft: '#b45309',
  hard: '#b91c1c',
  bar: '#0f766e',
  grid: '#e5e7eb',
  axis: '#4b5563',
};

const AXIS_TICK = { fill: COLORS.axis, fontSize: 12 };

function tooltipValue(value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => formatUsd(Number(v))).join(' – ');
  return formatUsd(Number(value));
}

interface Caps {
  soft: number | null;
  hard: number | null;
}

function capLines(caps: Caps, period: string) {
  return [
    caps.soft !== null && (
      <ReferenceLine
        key="soft"
        y={caps.soft}
        stroke={COLORS.soft}
        strokeDasharray="6 4"
        ifOverflow="extendDomain"
        label={{
          value: `${period} soft cap ${formatUsd(caps.soft)}`,
          position: 'insideBottomRight',
          fill: COLORS.soft,
          fontSize: 11,
        }}
      />
    ),
    caps.hard !== null && (
      <ReferenceLine
        key="hard"
        y={caps.hard}
        stroke={COLORS.hard}
        strokeWidth={2}
        ifOverflow="extendDomain"
        label={{
          value: `${period} hard cap ${formatUsd(caps.hard)}`,
          position: 'insideTopLeft',
          fill: COLORS.hard,
          fontSize: 11,
        }}
      />
    ),
  ];
}

function ChartFrame({
  testId,
  label,
  height,
  children,
}: {
  testId: string;
  label: string;
  height: number;
  children: ReactElement;
}) {
  return (
    <div className="chart" data-testid={testId} role="img" aria-label={label} style={{ height }}>
      <ResponsiveContainer
        width="100%"
        height={height}
        minWidth={0}
        initialDimension={{ width: 600, height }}
      >
        {children}
      </ResponsiveContainer>
    </div>
  );
}

const hourTick = (t: number) => `${String(Math.floor(t)).padStart(2, '0')}:00`;

/**
 * Today's spend so far (UTC day) against the daily soft and hard caps, with the forecast's P50 and
 * P50–P95 projection to midnight when there is one.
 */
export function SpendTodayChart({ points, caps }: { points: TodayPoint[]; caps: Caps }) {
  const actual = [...points].reverse().find((p) => p.actualUsd !== undefined)?.actualUsd ?? 0;
  const projected = points[points.length - 1]?.projectedUsd;
  return (
    <ChartFrame
      testId="spend-chart"
      height={240}
      label={`Spend today ${formatUsd(actual)}${projected !== undefined ? `, projected ${formatUsd(projected)} by midnight (P50)` : ''}; daily soft cap ${formatUsd(caps.soft)}, hard cap ${formatUsd(caps.hard)}`}
    >
      <ComposedChart data={points} margin={{ top: 16, right: 16, bottom: 4, left: 4 }}>
        <CartesianGrid stroke={COLORS.grid} vertical={false} />
        <XAxis
          dataKey="t"
          type="number"
          domain={[0, 24]}
          ticks={[0, 3, 6, 9, 12, 15, 18, 21, 24]}
          tickFormatter={hourTick}
          tick={AXIS_TICK}
          interval="preserveStartEnd"
        />
        <YAxis tick={AXIS_TICK} tickFormatter={formatUsdShort} width={56} />
        <Tooltip formatter={(v) => tooltipValue(v)} labelFormatter={(t) => `${hourTick(Number(t))} UTC`} />
        <Area
          dataKey="band"
          name="Projected P50–P95"
          stroke="none"
          fill={COLORS.band95}
          fillOpacity={0.6}
          isAnimationActive={false}
        />
        <Line
          dataKey="projectedUsd"
          name="Projected P50"
          stroke={COLORS.p50}
          strokeDasharray="5 4"
          strokeWidth={2}
          dot={false}
          isAnimationActive={false}
        />
        <Area
          type="monotone"
          dataKey="actualUsd"
          name="Spent today"
          stroke={COLORS.spend}
          fill={COLORS.spend}
          fillOpacity={0.15}
          strokeWidth={2}
          dot={false}
          isAnimationActive={false}
        />
        {capLines(caps, 'Daily')}
      </ComposedChart>
    </ChartFrame>
  );
}

/** Spend per UTC hour over the last 48 hours (hours without calls shown as zero). */
export function HourlyChart({ hourly, now }: { hourly: HourlySpend[]; now: number }) {
  const HOUR = 3_600_000;
  const byHour = new Map<number, HourlySpend>();
  for (const h of hourly) byHour.set(bucketTime(h.hour), h);
  const current = Math.floor(now / HOUR) * HOUR;
  const data = Array.from({ length: 48 }, (_, i) => {
    const t = current - (47 - i) * HOUR;
    const d = new Date(t);
    return {
      label: `${String(d.getUTCDate()).padStart(2, '0')} ${String(d.getUTCHours()).padStart(2, '0')}h`,
      costUsd: byHour.get(t)?.costUsd ?? 0,
      calls: byHour.get(t)?.calls ?? 0,
    };
  });
  return (
    <ChartFrame testId="hourly-chart" height={200} label="Spend per hour over the last 48 hours (UTC)">
      <BarChart data={data} margin={{ top: 8, right: 16, bottom: 4, left: 4 }}>
        <CartesianGrid stroke={COLORS.grid} vertical={false} />
        <XAxis dataKey="label" tick={AXIS_TICK} interval="preserveStartEnd" minTickGap={28} />
        <YAxis tick={AXIS_TICK} tickFormatter={formatUsdShort} width={56} />
        <Tooltip formatter={(v) => tooltipValue(v)} />
        <Bar dataKey="costUsd" name="Spend" fill={COLORS.bar} isAnimationActive={false} />
      </BarChart>
    </ChartFrame>
  );
}

interface FanDatum {
  label: string;
  p50: number;
  band95: [number, number];
  band99: [number, number];
}

/**
 * The Monte Carlo fan to the end of the month: P50 line, P50–P95 and P95–P99 bands, monthly cap
 * lines. Without daily fan points it draws the horizons instead.
 */
export function ForecastChart({
  forecast,
  monthUsd,
  caps,
  now,
}: {
  forecast: ForecastResponse;
  monthUsd: number;
  caps: Caps;
  now: number;
}) {
  const fromDaily = forecast.daily.length > 0;
  const data: FanDatum[] = fromDaily
    ? forecast.daily.map((p) => ({
        label: p.date.slice(5, 10),
        p50: p.p50Usd,
        band95: [p.p50Usd, p.p95Usd],
        band99: [p.p95Usd, p.p99Usd],
      }))
    : forecast.horizons.map((h) => ({
        label: humanize(h.name),
        p50: h.p50Usd,
        band95: [h.p50Usd, h.p95Usd],
        band99: [h.p95Usd, h.p99Usd],
      }));
  const today = new Date(now).toISOString().slice(5, 10);
  if (fromDaily && data[0] && data[0].label > today) {
    data.unshift({ label: today, p50: monthUsd, band95: [monthUsd, monthUsd], band99: [monthUsd, monthUsd] });
  }
  const end = data[data.length - 1];
  return (
    <ChartFrame
      testId="forecast-chart"
      height={260}
      label={
        end
          ? `Forecast ${fromDaily ? 'to month end' : 'by horizon'}: P50 ${formatUsd(end.p50)}, P95 ${formatUsd(end.band95[1])}, P99 ${formatUsd(end.band99[1])}`
          : 'Forecast'
      }
    >
      <ComposedChart data={data} margin={{ top: 16, right: 16, bottom: 4, left: 4 }}>
        <CartesianGrid stroke={COLORS.grid} vertical={false} />
        <XAxis dataKey="label" tick={AXIS_TICK} interval="preserveStartEnd" minTickGap={20} />
        <YAxis tick={AXIS_TICK} tickFormatter={formatUsdShort} width={56} />
        <Tooltip formatter={(v) => tooltipValue(v)} />
        <Area
          dataKey="band99"
          name="P95–P99"
          stroke="none"
          fill={COLORS.band99}
          fillOpacity={1}
          isAnimationActive={false}
        />
        <Area
          dataKey="band95"
          name="P50–P95"
          stroke="none"
          fill={COLORS.band95}
          fillOpacity={0.8}
          isAnimationActive={false}
        />
        <Line
          dataKey="p50"
          name="P50"
          stroke={COLORS.p50}
          strokeWidth={2}
          dot={!fromDaily}
          isAnimationActive={false}
        />
        {fromDaily && capLines(caps, 'Monthly')}
      </ComposedChart>
    </ChartFrame>
  );
}

function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function HorizontalBars({
  testId,
  label,
  data,
  labelWidth,
}: {
  testId: string;
  label: string;
  data: { name: string; costUsd: number; calls: number }[];
  labelWidth: number;
}) {
  const height = Math.max(120, data.length * 34 + 40);
  return (
    <ChartFrame testId={testId} height={height} label={label}>
      <BarChart data={data} layout="vertical" margin={{ top: 4, right: 56, bottom: 4, left: 4 }}>
        <CartesianGrid stroke={COLORS.grid} horizontal={false} />
        <XAxis type="number" tick={AXIS_TICK} tickFormatter={formatUsdShort} />
        <YAxis
          type="category"
          dataKey="name"
          tick={AXIS_TICK}
          width={labelWidth}
          tickFormatter={(v: string) => truncate(v, Math.floor(labelWidth / 6.6))}
          interval={0}
        />
        <Tooltip formatter={(v) => tooltipValue(v)} />
        <Bar dataKey="costUsd" name="Spend" fill={COLORS.bar} isAnimationActive={false}>
          <LabelList
            dataKey="costUsd"
            position="right"
            formatter={(v) => formatUsdShort(Number(v))}
            fill={COLORS.axis}
            fontSize={11}
          />
        </Bar>
      </BarChart>
    </ChartFrame>
  );
}

export function ModelChart({ byModel, top = 8 }: { byModel: ModelSpend[]; top?: number }) {
  const data = [...byModel]
    .sort((a, b) => b.costUsd - a.costUsd)
    .slice(0, top)
    .map((m) => ({ name: m.model, costUsd: m.costUsd, calls: m.calls }));
  return (
    <HorizontalBars
      testId="model-chart"
      label={`Spend by model: ${data.map((d) => `${d.name} ${formatUsd(d.costUsd)}`).join(', ')}`}
      data={data}
      labelWidth={140}
    />
  );
}

export function ProviderChart({ byProvider }: { byProvider: ProviderSpend[] }) {
  const data = [...byProvider]
    .sort((a, b) => b.costUsd - a.costUsd)
    .map((p) => ({ name: p.provider, costUsd: p.costUsd, calls: p.calls }));
  return (
    <HorizontalBars
      testId="provider-chart"
      label={`Spend by provider: ${data.map((d) => `${d.name} ${formatUsd(d.costUsd)}`).join(', ')}`}
      data={data}
      labelWidth={84}
    />
  );
}

/**
 * Prompt size per call of one agent session (whole prompt: input plus cache reads and writes), oldest
 * first: a line that climbs call after call is a context that grows without bound (layer 3).
 */
export function PromptGrowthChart({
  points,
  sessionId,
}: {
  points: ReadonlyArray<{ ts: string; tokens: number }>;
  sessionId: string;
}) {
  const data = points.map((p, i) => ({ call: i + 1, tokens: p.tokens }));
  const first = data[0]?.tokens ?? 0;
  const last = data[data.length - 1]?.tokens ?? 0;
  return (
    <ChartFrame
      testId="prompt-growth-chart"
      height={140}
      label={`Prompt tokens per call of session ${sessionId}: ${data.length} calls, from ${first.toLocaleString('en-US')} to ${last.toLocaleString('en-US')} tokens`}
    >
      <ComposedChart data={data} margin={{ top: 8, right: 16, bottom: 4, left: 4 }}>
        <CartesianGrid stroke={COLORS.grid} vertical={false} />
        <XAxis dataKey="call" tick={AXIS_TICK} interval="preserveStartEnd" minTickGap={20} />
        <YAxis tick={AXIS_TICK} width={56} tickFormatter={(v: number) => v.toLocaleString('en-US')} />
        <Tooltip
          formatter={(v) => `${Number(v).toLocaleString('en-US')} tokens`}
          labelFormatter={(c) => `Call ${String(c)}`}
        />
        <Line
          dataKey="tokens"
          name="Prompt tokens"
          stroke={COLORS.p50}
          strokeWidth={2}
          dot={data.length <= 30}
          isAnimationActive={false}
        />
      </ComposedChart>
    </ChartFrame>
  );
}
