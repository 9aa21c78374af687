import { generateNormalWorkload } from './core/guardrails/workload';
import { replayOrg } from './core/guardrails/evaluate';
const orgs = generateNormalWorkload({ seed: 1, minSessions: 1000 });
for (let rep = 0; rep < 30; rep++) {
  const t = process.hrtime.bigint();
  let n = 0;
  for (const o of orgs) { replayOrg(o); n += o.events.length; }
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  console.log('replay', ms.toFixed(1), n, (n / ms * 1000).toFixed(0), 'ev/s');
}
