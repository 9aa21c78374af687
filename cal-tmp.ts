import { summarizeHistory, simulate, SeededRandom } from './core/forecast';
import type { HorizonId } from './core/forecast';
import { generateCalls, randomProcess, dayMultipliers } from './core/forecast/synthetic';
import { dayStart, nextMonthStart, MS_PER_DAY } from './core/forecast/calendar';
const trials = Number(process.argv[2] ?? 200);
const iters = Number(process.argv[3] ?? 4000);
const seed0 = Number(process.argv[4] ?? 1);
const cover: Record<string, { p50: number; p95: number; p99: number }> = {};
let simMs = 0;
const t0 = Date.now();
for (let t = 0; t < trials; t++) {
  const rng = new SeededRandom(seed0 * 100000 + t);
  const proc = randomProcess(rng);
  const now = Date.UTC(2026, 0, 1) + rng.int(330) * MS_PER_DAY + rng.int(21 * 3600_000);
  const mult = dayMultipliers(rng, proc.dayDispersion);
  const history = generateCalls(proc, rng, now - 35 * MS_PER_DAY, now, mult);
  const future = generateCalls(proc, rng, now, now + 32 * MS_PER_DAY, mult);
  const summary = summarizeHistory({ events: history }, { end: now });
  const s0 = Date.now();
  const f = simulate(summary, { now, seed: t, iterations: iters });
  simMs += Date.now() - s0;
  const ends: Record<HorizonId, number> = { restOfDay: dayStart(now) + MS_PER_DAY, restOfMonth: nextMonthStart(now), next7Days: now + 7 * MS_PER_DAY, next30Days: now + 30 * MS_PER_DAY };
  for (const h of f.horizons) {
    const realized = future.filter((c) => c.ts < ends[h.horizon]).reduce((a, c) => a + c.costNanos, 0);
    const c = (cover[h.horizon] ??= { p50: 0, p95: 0, p99: 0 });
    if (realized <= h.p50Nanos) c.p50++;
    if (realized <= h.p95Nanos) c.p95++;
    if (realized <= h.p99Nanos) c.p99++;
  }
}
for (const [h, c] of Object.entries(cover)) console.log(h.padEnd(12), 'P50', (c.p50 / trials * 100).toFixed(1), 'P95', (c.p95 / trials * 100).toFixed(1), 'P99', (c.p99 / trials * 100).toFixed(1));
console.log('total ms', Date.now() - t0, 'sim ms', simMs, 'per sim', (simMs / trials).toFixed(1));
