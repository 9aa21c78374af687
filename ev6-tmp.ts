import { generateNormalWorkload } from './core/guardrails/workload';
import { fingerprintHash, keyHash, streamHash } from './core/guardrails/identity';
const orgs = generateNormalWorkload({ seed: 2, minSessions: 5000 });
const events = JSON.parse(JSON.stringify(orgs.flatMap((o) => o.events).sort((a, b) => a.ts - b.ts))) as typeof orgs[0]["events"];
function time(name: string, fn: () => void) {
  let best = Infinity;
  for (let rep = 0; rep < 8; rep++) { const c0 = process.cpuUsage(); fn(); const c = process.cpuUsage(c0); best = Math.min(best, (c.user + c.system) / 1e6); }
  console.log(name, (best / events.length * 1e9).toFixed(0), 'ns/event');
}
let sink = 0;
time('loop', () => { for (const e of events) sink += e.ts; });
time('keyHash', () => { for (const e of events) sink += keyHash(e.keyId); });
time('streamHash', () => { for (const e of events) sink += streamHash(e.keyId, e.sessionId, e.model); });
time('fpHash', () => { for (const e of events) sink += fingerprintHash(e, e.promptTokens).hash; });
time('regex', () => { for (const e of events) if (/^[0-9]{1,132}$/.test(e.seq)) sink++; });
time('cmp', () => { let p = ''; for (const e of events) { if (e.seq.length === p.length ? e.seq > p : e.seq.length > p.length) sink++; p = e.seq; } });
console.log(sink > 0);
