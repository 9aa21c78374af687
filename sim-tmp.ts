import { summarizeHistory, simulate, SeededRandom } from './core/forecast';
import { generateCalls, randomProcess, dayMultipliers } from './core/forecast/synthetic';
import { MS_PER_DAY } from './core/forecast/calendar';
for (const rate of [0.1, 0.3, 0.6, 2, 10, 400]) {
  const rng = new SeededRandom(5);
  const proc = { ...randomProcess(rng), callsPerHour: rate };
  const now = Date.UTC(2026, 3, 9, 10);
  const history = generateCalls(proc, rng, now - 35 * MS_PER_DAY, now, dayMultipliers(rng, proc.dayDispersion));
  const summary = summarizeHistory({ events: history }, { end: now });
  let best = Infinity;
  for (let i = 0; i < 8; i++) { const c0 = process.cpuUsage(); simulate(summary, { now, seed: i, iterations: 10000 }); const c = process.cpuUsage(c0); best = Math.min(best, (c.user + c.system) / 1000); }
  console.log('rate', rate, 'calls', history.length, 'best cpu ms', best.toFixed(1));
}
