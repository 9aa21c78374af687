/**
 * Monte Carlo forecast: time of one 10,000-iteration simulation over every horizon (the longest
 * is 30–31 days) for small and huge histories, the time to summarize them, and the calibration.
 */
import { simulate, summarizeHistory, SeededRandom } from '../core/forecast';
import type { HistorySummary, HourlyAggregate } from '../core/forecast';
import { calibrate } from '../core/forecast/calibration';
import { dayMultipliers, generateCalls, randomProcess, relativeRate } from '../core/forecast/synthetic';

const TARGET_MS = 50;
const NOW = Date.UTC(2026, 3, 9, 10, 30);
const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Best of `runs` (CPU ms and wall ms): the machine is shared, the minimum is the code's own cost. */
function measure(fn: () => void, runs: number): { cpuMs: number; wallMs: number } {
  let cpuMs = Infinity;
  let wallMs = Infinity;
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    fn();
    wallMs = Math.min(wallMs, performance.now() - w0);
    const c = process.cpuUsage(c0);
    cpuMs = Math.min(cpuMs, (c.user + c.system) / 1000);
  }
  return { cpuMs, wallMs };
}

interface Case {
  name: string;
  size: string;
  summarize: () => HistorySummary;
}

function eventsCase(name: string, callsPerHour: number, days: number): Case {
  const rng = new SeededRandom(11);
  const process = { ...randomProcess(rng), callsPerHour };
  const events = generateCalls(
    process,
    rng,
    NOW - days * DAY,
    NOW,
    dayMultipliers(rng, process.dayDispersion),
  );
  return {
    name,
    size: `${events.length.toLocaleString('en-US')} calls, ${days} d`,
    summarize: () => summarizeHistory({ events }, { end: NOW, lookbackDays: days }),
  };
}

function hourlyCase(name: string, callsPerHour: number, days: number): Case {
  const rng = new SeededRandom(12);
  const process = { ...randomProcess(rng), callsPerHour };
  const mult = dayMultipliers(rng, process.dayDispersion);
  const hourly: HourlyAggregate[] = [];
  let calls = 0;
  for (let h = NOW - days * DAY; h < NOW - HOUR; h += HOUR) {
    const n = rng.poisson(callsPerHour * relativeRate(process, h) * mult(Math.floor(h / DAY) * DAY));
    const costNanos = Math.round(n * 30_000_000 * (0.8 + 0.4 * rng.uniform()));
    hourly.push({
      hourStart: h,
      calls: n,
      costNanos,
      costSquaresNanos2: ((costNanos * costNanos) / Math.max(1, n)) * 3,
    });
    calls += n;
  }
  return {
    name,
    size: `${hourly.length.toLocaleString('en-US')} hourly aggregates = ${calls.toLocaleString('en-US')} calls, ${days} d`,
    summarize: () => summarizeHistory({ hourly }, { end: NOW, lookbackDays: days }),
  };
}

export default async function (): Promise<void> {
  const cases = [
    eventsCase('small (new organization)', 2, 1),
    eventsCase('quiet (5 calls/day)', 0.2, 28),
    eventsCase('medium', 40, 28),
    eventsCase('huge, calls', 1500, 28),
    hourlyCase('huge, hourly aggregates', 50_000, 365),
  ];
  console.log(
    `10,000 iterations, horizons rest of day / rest of month / 7 d / 30 d (best of 10; target ≤ ${TARGET_MS} ms)`,
  );
  console.log(`${'history'.padEnd(26)}${'size'.padEnd(62)}${'summarize'.padEnd(12)}simulate (CPU / wall)`);
  for (const c of cases) {
    let summary = c.summarize();
    const s = measure(() => (summary = c.summarize()), 3);
    simulate(summary, { now: NOW, seed: 0, iterations: 10_000 }); // warm-up
    const m = measure(() => simulate(summary, { now: NOW, seed: 1, iterations: 10_000 }), 10);
    const ok = Math.min(m.cpuMs, m.wallMs) <= TARGET_MS ? 'OK' : 'ABOVE TARGET';
    console.log(
      `${c.name.padEnd(26)}${c.size.padEnd(62)}${`${s.wallMs.toFixed(1)} ms`.padEnd(12)}` +
        `${m.cpuMs.toFixed(1)} / ${m.wallMs.toFixed(1)} ms ${ok}; JSON ${JSON.stringify(summary).length} B`,
    );
  }
  const t0 = performance.now();
  const coverage = calibrate({ trials: 400, iterations: 10_000, seed: 1 });
  console.log(
    `\ncalibration: 400 synthetic organizations, 10,000 iterations each (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  );
  console.log(`${'horizon'.padEnd(14)}≤ P50 (50 % ± 5)   ≤ P95 (95 % ± 3)   ≤ P99`);
  for (const c of coverage) {
    console.log(
      `${c.horizon.padEnd(14)}${`${(c.p50 * 100).toFixed(1)} %`.padEnd(19)}${`${(c.p95 * 100).toFixed(1)} %`.padEnd(19)}${(c.p99 * 100).toFixed(1)} %`,
    );
  }
}
