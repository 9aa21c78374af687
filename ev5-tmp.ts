import { DEFAULT_POLICY, prepareEvent, compareSequenceNumbers, isSequenceNumber } from './core/guardrails';
import { initialOrgState } from './core/guardrails';
import { financialLimitsLayer } from './core/guardrails/financial-limits';
import { generateNormalWorkload } from './core/guardrails/workload';
const orgs = generateNormalWorkload({ seed: 2, minSessions: 5000 });
const events = orgs.flatMap((o) => o.events).sort((a, b) => a.ts - b.ts);
function time(name: string, fn: () => void) {
  let best = Infinity;
  for (let rep = 0; rep < 8; rep++) { const c0 = process.cpuUsage(); fn(); const c = process.cpuUsage(c0); best = Math.min(best, (c.user + c.system) / 1e6); }
  console.log(name, (best / events.length * 1e9).toFixed(0), 'ns/event');
}
let sink = 0;
time('loop', () => { for (const e of events) sink += e.ts; });
time('map', () => { const m = new Map<string, number>(); for (const e of events) { m.set(e.orgId, (m.get(e.orgId) ?? 0) + 1); } });
time('seq', () => { let prev = '0'; for (const e of events) { if (isSequenceNumber(e.seq) && compareSequenceNumbers(e.seq, prev) > 0) sink++; prev = e.seq; } });
time('prepare', () => { for (const e of events) sink += prepareEvent(e, DEFAULT_POLICY, e.ts).keyHash; });
const prepared = events.map((e) => prepareEvent(e, DEFAULT_POLICY, e.ts));
time('financial', () => { let s = financialLimitsLayer.initialState(); for (const p of prepared) s = financialLimitsLayer.step(s, p, DEFAULT_POLICY, p.ts).state; });
time('init', () => { for (const e of events) sink += initialOrgState().v; });
time('spread', () => { const st = initialOrgState(); for (const e of events) { const l = { ...st.layers }; sink += l ? 1 : 0; } });
console.log(sink > 0);
