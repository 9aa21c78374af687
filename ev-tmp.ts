import { evaluateGuardrails, formatEvaluationReport } from './core/guardrails/evaluate';
for (const seed of [1, 2, 3, 4, 5, 6]) {
const t = Date.now();
const r = evaluateGuardrails({ seed, normalSessions: seed === 1 ? 1000 : 5000, scenariosPerKind: 30 });
if (seed < 3) console.log(formatEvaluationReport(r)); else console.log(seed, r.targets, r.normal.falsePositiveVerdicts, r.normal.premiumDowngrades);
console.log('ms', Date.now() - t);
}
