import { applyEvent, DEFAULT_POLICY, initialOrgState } from './core/guardrails';
import type { OrgGuardrailState, GuardrailPolicy } from './core/guardrails';
import { generateNormalWorkload } from './core/guardrails/workload';
const orgs = generateNormalWorkload({ seed: 2, minSessions: 5000 });
const events = JSON.parse(JSON.stringify(orgs.flatMap((o) => o.events).sort((a, b) => a.ts - b.ts))) as typeof orgs[0]["events"];
const variants: [string, GuardrailPolicy][] = [['all', DEFAULT_POLICY]];
for (const id of ['identicalLoop', 'contextGrowth', 'rpsBurst', 'premiumConcentration'] as const) {
  const others = { ...DEFAULT_POLICY } as any;
  for (const o of ['identicalLoop', 'contextGrowth', 'rpsBurst', 'premiumConcentration']) others[o] = { ...(DEFAULT_POLICY as any)[o], enabled: o === id };
  variants.push(['only ' + id, others]);
}
const none = { ...DEFAULT_POLICY } as any;
for (const o of ['identicalLoop', 'contextGrowth', 'rpsBurst', 'premiumConcentration']) none[o] = { ...(DEFAULT_POLICY as any)[o], enabled: false };
variants.push(['financial only', none]);
for (const [name, policy] of variants) {
  let best = Infinity;
  for (let rep = 0; rep < 8; rep++) {
    const states = new Map<string, OrgGuardrailState>();
    const c0 = process.cpuUsage();
    for (const e of events) {
      const r = applyEvent(states.get(e.orgId) ?? initialOrgState(), e, policy, e.ts);
      states.set(e.orgId, r.state);
    }
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1e6);
  }
  console.log(name, (best / events.length * 1e9).toFixed(0), 'ns/event');
}
