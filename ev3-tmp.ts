import { applyEvent, DEFAULT_POLICY, initialOrgState } from './core/guardrails';
import type { OrgGuardrailState } from './core/guardrails';
import { generateNormalWorkload } from './core/guardrails/workload';
const orgs = generateNormalWorkload({ seed: 2, minSessions: 5000 });
const policies = new Map(orgs.map((o) => [o.orgId, o.policy]));
const events = JSON.parse(JSON.stringify(orgs.flatMap((o) => o.events).sort((a, b) => a.ts - b.ts))) as typeof orgs[0]["events"];
for (let rep = 0; rep < 20; rep++) {
  const states = new Map<string, OrgGuardrailState>();
  const c0 = process.cpuUsage();
  for (const e of events) {
    const r = applyEvent(states.get(e.orgId) ?? initialOrgState(), e, policies.get(e.orgId) ?? DEFAULT_POLICY, e.ts);
    states.set(e.orgId, r.state);
  }
  const c = process.cpuUsage(c0);
  console.log((events.length / ((c.user + c.system) / 1e6)).toFixed(0));
}
